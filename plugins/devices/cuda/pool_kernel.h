// MaxPool and AveragePool over 1 or 2 spatial dims: one thread per output
// element, looping over its window.
#pragma once

#include <string>
#include <vector>

#include "gpu_limits.h"
#include "op_kernel.h"
#include "op_node.h"

namespace aoe::cuda {

bool is_pool_op(const std::string& op_type);
// THREADS and ITEMS as linear_knobs gives them.
std::vector<OpKernel> pool_kernels(const OpNode& node, const GpuLimits& limits);

}  // namespace aoe::cuda
