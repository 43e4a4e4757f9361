// Convolution kernels over buffers: GEMM with the im2col matrix packed
// straight from the image (a plain GEMM for 1x1 stride-1 convolutions), for
// 1-D, 2-D and 3-D ones; for 2-D, direct convolution on the channel-blocked
// layout and depthwise kernels on either layout. Fused ops run on each
// finished output row.
#pragma once

#include <cstdint>

#include "chain.h"
#include "gemm.h"
#include "isa.h"
#include "thread_pool.h"

namespace aoe::cpu {

struct ConvShape {
  int64_t n = 1, c = 1, h = 1, w = 1;  // input
  int64_t m = 1, group = 1;            // output channels, groups
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1;
  int64_t ph = 0, pw = 0, ph_end = 0, pw_end = 0;
  int64_t oh = 1, ow = 1;
  int64_t d = 1, kd = 1, sd = 1, dd = 1, pd = 0, pd_end = 0, od = 1;  // depth: a 3-D convolution's

  int64_t in_pixels() const { return d * h * w; }
  int64_t out_pixels() const { return od * oh * ow; }
  int64_t taps() const { return kd * kh * kw; }
  bool pointwise() const {
    return taps() == 1 && sd == 1 && sh == 1 && sw == 1 && pd == 0 && ph == 0 && pw == 0 && pd_end == 0 &&
           ph_end == 0 && pw_end == 0;
  }
  bool depthwise() const { return group == c && m == c && group > 1; }
};

// NCHW input and output, weights [m][c/group][kh][kw]. The epilogue sees the
// output as (n * m) rows of oh * ow, bias included.
void conv_gemm(const ConvShape& s, const GemmConfig& config, const float* src, const float* weights, float* dst,
               const Chain* epilogue, GemmWorkspace& ws, ThreadPool& pool);

// One group's im2col matrix of one image: (c/group * kd * kh * kw) rows of
// od * oh * ow, zero where a tap falls in the padding.
void im2col(const ConvShape& s, const float* image, float* col);
// The same product by OpenBLAS's sgemm, im2col into `col` first (kg x oh*ow
// floats; unused for 1x1 stride-1 convolutions), the epilogue row by row.
void conv_openblas(const ConvShape& s, int threads, const IsaKernels& isa, const float* src, const float* weights,
                   float* dst, const Chain* epilogue, float* col, ThreadPool& pool);

enum class DirectOrder { oc_outer, spatial_outer };

struct DirectConfig {
  const IsaKernels* isa = nullptr;
  // tile: the interior's; rest: a narrower one (4 pixels) for what whole tiles
  // leave of it; border: the 1-pixel tile for the edges. All of the same channel blocks.
  ConvTile tile, rest, border;
  DirectOrder order = DirectOrder::oc_outer;
  int threads = 1;
};

// Blocked layouts with c = config.isa->lanes. The epilogue sees the output
// as (n * blocks) rows of oh * ow * c.
void conv_direct_blocked(const ConvShape& s, const DirectConfig& config, const float* src, const float* weights,
                         const float* bias, float* dst, const Chain* epilogue, ThreadPool& pool);
// [m][c][kh][kw] -> [ocb][icb][kh][kw][ic][oc], zero-padded.
void weights_to_blocked(const ConvShape& s, const float* w, float* dst, int lanes);

// Depthwise (group == c == m), blocked: weights [cb][kh][kw][c].
void depthwise_blocked(const ConvShape& s, const DirectConfig& config, const float* src, const float* weights,
                       const float* bias, float* dst, const Chain* epilogue, ThreadPool& pool);
void depthwise_weights_to_blocked(const ConvShape& s, const float* w, float* dst, int lanes);

// Depthwise on NCHW planes, each zero-padded into `scratch` (per thread,
// (h + ph + ph_end) * (w + pw + pw_end) floats each).
void depthwise_nchw(const ConvShape& s, const IsaKernels& isa, int threads, const float* src, const float* weights,
                    const float* bias, float* dst, const Chain* epilogue, float* scratch, ThreadPool& pool);

}  // namespace aoe::cpu
