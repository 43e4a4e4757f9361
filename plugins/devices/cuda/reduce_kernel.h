// ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceSumSquare, ReduceL1,
// ReduceL2 and the global pools: one block per output element, the
// elements it reduces walked by the block's threads and combined in shared memory.
#pragma once

#include <string>
#include <vector>

#include "gpu_limits.h"
#include "op_kernel.h"
#include "op_node.h"

namespace aoe::cuda {

bool is_reduce_op(const std::string& op_type);
// THREADS: reduction_threads of the count each output reduces.
std::vector<OpKernel> reduce_kernels(const OpNode& node, const GpuLimits& limits);

}  // namespace aoe::cuda
