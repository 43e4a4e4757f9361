// Conv over 1 or 2 spatial dims, grouped and depthwise too, with its bias:
// an implicit GEMM per group where the group's filters and window are large
// enough to fill its tiles, else a direct kernel, one thread per output
// element summing its window over the group's input channels.
#pragma once

#include <vector>

#include "gpu_limits.h"
#include "op_kernel.h"
#include "op_node.h"

namespace aoe::cuda {

// The implicit GEMM: 256 threads, tiles of TILE_M (64, 32 or 16: the
// smallest of those at least the group's filters, capped at 64) x TILE_N 64
// x TILE_K 8, TM x 4 sums a thread. The direct kernel: THREADS and ITEMS as
// linear_knobs gives them.
std::vector<OpKernel> conv_kernels(const OpNode& node, const GpuLimits& limits);

}  // namespace aoe::cuda
