// Conv over 1 or 2 spatial dims, grouped and depthwise too, with its bias:
// a direct kernel, one thread per output element summing its window over
// the group's input channels.
#pragma once

#include <vector>

#include "gpu_limits.h"
#include "op_kernel.h"
#include "op_node.h"

namespace aoe::cuda {

// THREADS and ITEMS as linear_knobs gives them.
std::vector<OpKernel> conv_kernels(const OpNode& node, const GpuLimits& limits);

}  // namespace aoe::cuda
