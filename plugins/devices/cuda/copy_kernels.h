// The ops that move elements without computing on them: Transpose, Concat,
// Split, Slice, Gather, Pad and Tile. Each output element is read from
// where an index map puts it in the input (or written, for Concat, where
// the input's element lands in the output).
#pragma once

#include <string>
#include <vector>

#include "gpu_limits.h"
#include "op_kernel.h"
#include "op_node.h"

namespace aoe::cuda {

bool is_copy_op(const std::string& op_type);
// One kernel per input for Concat, one per output for Split, else one;
// THREADS and ITEMS as linear_knobs gives them.
std::vector<OpKernel> copy_kernels(const OpNode& node, const GpuLimits& limits);

}  // namespace aoe::cuda
