// Conv over 1 or 2 spatial dims, grouped and depthwise too, with its bias:
// an implicit GEMM per group where the group's filters and window are large
// enough to fill its tiles, else a direct kernel, one thread per output
// element summing its window over the group's input channels. A
// ConvTranspose runs the direct kernel, each output element summing the
// input positions and taps that land on it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "conv_tiling.h"
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

// The GEMM each group is where its implicit GEMM computes it: a group of at
// least 16 filters over a window of at least 16 values. None (a depthwise
// Conv): the direct kernel, one thread per output element summing its
// window over the group's input channels, THREADS and ITEMS as
// linear_knobs gives them. Throws sdk::Error(invalid_argument) for weights
// that do not fit the input.
std::optional<ConvGemmShape> conv_gemm_shape(const OpNode& node);

// The knobs of the Conv's kernel: the implicit GEMM's tiles, or the direct
// kernel's THREADS and ITEMS (conv_tiling.h); and whether a config runs on
// a GPU of `limits`.
sdk::TuningSpace conv_kernel_space(const OpNode& node, const GpuLimits& limits);
sdk::Measurement conv_kernel_check(const OpNode& node, const sdk::Config& config, const GpuLimits& limits);

// The kernel's inputs name the Conv's own (x0..x2); a caller fusing an
// epilogue binds the slots above itself. `tiling`: a config of
// conv_kernel_space, checked by the caller; none: its default.
std::vector<OpKernel> conv_kernels(const OpNode& node, const GpuLimits& limits, const ConvEpilogue& epilogue = {},
                                   const std::optional<sdk::Config>& tiling = std::nullopt);

}  // namespace aoe::cuda
