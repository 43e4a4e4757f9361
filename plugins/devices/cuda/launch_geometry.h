// How a compiled kernel is launched: grid, block and dynamic shared memory,
// as cuLaunchKernel takes them.
#pragma once

#include <array>

namespace aoe::cuda {

struct LaunchGeometry {
  std::array<unsigned, 3> grid{1, 1, 1}, block{1, 1, 1};
  unsigned shared_bytes = 0;  // dynamic shared memory per block
};

}  // namespace aoe::cuda
