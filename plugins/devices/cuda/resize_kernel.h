// Resize, nearest or linear, over any axes: where each output position
// reads along each axis (its source taps and their weights) is worked out
// here, from the static shapes, and written into the source as tables.
#pragma once

#include <vector>

#include "gpu_limits.h"
#include "op_kernel.h"
#include "op_node.h"

namespace aoe::cuda {

// THREADS and ITEMS as linear_knobs gives them.
std::vector<OpKernel> resize_kernels(const OpNode& node, const GpuLimits& limits);

}  // namespace aoe::cuda
