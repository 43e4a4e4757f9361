// Conv over 1 or 2 spatial dims, grouped and depthwise too, with its bias:
// an implicit GEMM per group where the group's filters and window are large
// enough to fill its tiles, else a direct kernel, one thread per output
// element summing its window over the group's input channels.
#pragma once

#include <string>
#include <vector>

#include "elementwise_kernel.h"
#include "gpu_limits.h"
#include "op_kernel.h"
#include "op_node.h"

namespace aoe::cuda {

// What a Conv's kernel applies to each sum after its bias, fused from the
// ops after it: an inference BatchNormalization (its scale, B, mean and var
// read at the filter from x3..x6), an Add of a tensor of the output's shape
// (a residual, read at the output element from x7), then ops that each
// follow the one before (`follow_on`).
struct ConvEpilogue {
  bool batch_norm = false;
  double epsilon = 1e-5;
  bool residual = false;
  ChainExpression follow_on;
};
inline constexpr int kConvBatchNormSlot = 3;  // x3..x6: scale, B, mean, var
inline constexpr int kConvResidualSlot = 7;

// The implicit GEMM: 256 threads, tiles of TILE_M (64, 32 or 16: the
// smallest of those at least the group's filters, capped at 64) x TILE_N 64
// x TILE_K 8, TM x 4 sums a thread. The direct kernel: THREADS and ITEMS as
// linear_knobs gives them.
// The kernel's inputs name the Conv's own (x0..x2); a caller fusing an
// epilogue binds the slots above itself.
std::vector<OpKernel> conv_kernels(const OpNode& node, const GpuLimits& limits, const ConvEpilogue& epilogue = {});

}  // namespace aoe::cuda
