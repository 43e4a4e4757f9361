// Softmax, LogSoftmax and LayerNormalization: one block per row of the
// normalised axis (axes), its statistics reduced in shared memory.
#pragma once

#include <string>
#include <vector>

#include "gpu_limits.h"
#include "op_kernel.h"
#include "op_node.h"

namespace aoe::cuda {

bool is_row_op(const std::string& op_type);
// THREADS per block: reduction_threads of the row's length. LayerNormalization
// gives one kernel per output asked for (Y, Mean, InvStdDev).
std::vector<OpKernel> row_kernels(const OpNode& node, const GpuLimits& limits);

}  // namespace aoe::cuda
