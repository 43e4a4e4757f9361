// Elementwise ops with numpy broadcasting: each output element is an
// expression of its inputs' elements, read where the broadcast puts them.
#pragma once

#include <string>
#include <vector>

#include "gpu_limits.h"
#include "op_kernel.h"
#include "op_node.h"

namespace aoe::cuda {

bool is_elementwise_op(const std::string& op_type);
// One kernel (see linear_knobs for THREADS and ITEMS).
std::vector<OpKernel> elementwise_kernels(const OpNode& node, const GpuLimits& limits);

}  // namespace aoe::cuda
