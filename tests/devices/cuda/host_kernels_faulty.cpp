// problems/faulty.cu on the test double: output = 2 * input, wrong at 0 for
// fault 5. The other faults (1 to 4) the double injects by its fault rules
// (AOE_CUDA_DOUBLE_FAULTS keyed on the `fault` define), as a GPU shows them.
#include "host_kernel.h"

namespace aoe::cuda_double {
namespace {

const HostKernelRegistrar faulty("faulty_kernel", HostKernel{
    [](const HostLaunch& launch) {
      float* output = launch.buffer<float>(0);
      const float* input = launch.buffer<float>(1);
      const int n = launch.scalar<int>(2);
      for (int i = 0; i < n; ++i) output[i] = 2.0f * input[i];
      if (launch.define_int("fault") == 5 && n > 0) output[0] += 1.0f;
    },
    // Larger blocks are faster here, so the tuner has a best to find.
    [](const HostLaunch& launch) { return 1.0 + 64.0 / static_cast<double>(launch.define_int("block_size_x")); }});

}  // namespace
}  // namespace aoe::cuda_double
