#include "blocked.h"

#include <algorithm>

namespace aoe::cpu {

void to_blocked(const float* src, float* dst, int64_t n, int64_t channels, int64_t spatial, int lanes) {
  const int64_t blocks = channel_blocks(channels, lanes);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t b = 0; b < blocks; ++b)
      for (int64_t s = 0; s < spatial; ++s)
        for (int l = 0; l < lanes; ++l) {
          const int64_t c = b * lanes + l;
          dst[((i * blocks + b) * spatial + s) * lanes + l] = c < channels ? src[(i * channels + c) * spatial + s] : 0.0f;
        }
}

void from_blocked(const float* src, float* dst, int64_t n, int64_t channels, int64_t spatial, int lanes) {
  const int64_t blocks = channel_blocks(channels, lanes);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t s = 0; s < spatial; ++s)
        dst[(i * channels + c) * spatial + s] = src[((i * blocks + c / lanes) * spatial + s) * lanes + c % lanes];
}

namespace {

// Pixels [s0, s1) of one channel block, plain (`valid` planes of `stride`
// floats) into blocked (L lanes a pixel, padding lanes zero): L x L tiles
// transposed through a local buffer, so both sides are read and written
// in runs the compiler vectorises.
template <int L>
void pack_block(const float* in, int64_t stride, int valid, float* out, int64_t s0, int64_t s1) {
  int64_t s = s0;
  for (; s + L <= s1; s += L) {
    float tile[L][L];
    for (int l = 0; l < L; ++l)
      for (int p = 0; p < L; ++p) tile[l][p] = l < valid ? in[l * stride + s + p] : 0.0f;
    for (int p = 0; p < L; ++p)
      for (int l = 0; l < L; ++l) out[(s + p) * L + l] = tile[l][p];
  }
  for (; s < s1; ++s)
    for (int l = 0; l < L; ++l) out[s * L + l] = l < valid ? in[l * stride + s] : 0.0f;
}

// The inverse: blocked pixels [s0, s1) into the block's `valid` planes.
template <int L>
void unpack_block(const float* in, int64_t stride, int valid, float* out, int64_t s0, int64_t s1) {
  int64_t s = s0;
  for (; s + L <= s1; s += L) {
    float tile[L][L];
    for (int p = 0; p < L; ++p)
      for (int l = 0; l < L; ++l) tile[l][p] = in[(s + p) * L + l];
    for (int l = 0; l < valid; ++l)
      for (int p = 0; p < L; ++p) out[l * stride + s + p] = tile[l][p];
  }
  for (; s < s1; ++s)
    for (int l = 0; l < valid; ++l) out[l * stride + s] = in[s * L + l];
}

}  // namespace

void Relayout::run(ThreadPool& pool, int threads) const {
  const int64_t C = channels, S = spatial;
  if (from == 0 && to == 0) {
    pool.run(n * C, threads, [&](int64_t plane, int) {
      std::copy(src + plane * S, src + (plane + 1) * S, dst + plane * S);
    });
    return;
  }
  // Each task a run of pixels of one channel block (of the blocked side):
  // its lanes read or written a pixel at a time, each plane in order, so
  // every cache line of the block is touched once, not once per lane.
  const int lanes = to > 0 ? to : from;
  const int64_t blocks = channel_blocks(C, lanes);
  constexpr int64_t kPixels = 256;
  const int64_t runs = (S + kPixels - 1) / kPixels;
  pool.run(n * blocks * runs, threads, [&](int64_t task, int) {
    const int64_t r = task % runs, plane = task / runs, i = plane / blocks, b = plane % blocks;
    const int64_t s0 = r * kPixels, s1 = std::min(S, s0 + kPixels);
    const int valid = static_cast<int>(std::min<int64_t>(lanes, C - b * lanes));
    if (from == 0) {  // plain -> blocked, padding lanes zero
      const float* in = src + (i * C + b * lanes) * S;
      float* out = dst + plane * S * to;
      if (to == 16) return pack_block<16>(in, S, valid, out, s0, s1);
      if (to == 8) return pack_block<8>(in, S, valid, out, s0, s1);
      for (int64_t s = s0; s < s1; ++s) {
        float* o = out + s * to;
        for (int l = 0; l < valid; ++l) o[l] = in[l * S + s];
        for (int l = valid; l < to; ++l) o[l] = 0.0f;
      }
    } else if (to == 0) {  // blocked -> plain
      const float* in = src + plane * S * from;
      float* out = dst + (i * C + b * lanes) * S;
      if (from == 16) return unpack_block<16>(in, S, valid, out, s0, s1);
      if (from == 8) return unpack_block<8>(in, S, valid, out, s0, s1);
      for (int64_t s = s0; s < s1; ++s)
        for (int l = 0; l < valid; ++l) out[l * S + s] = in[s * from + l];
    } else {  // one blocking into another
      const int64_t src_blocks = channel_blocks(C, from);
      float* out = dst + plane * S * to;
      for (int64_t s = s0; s < s1; ++s)
        for (int l = 0; l < to; ++l) {
          const int64_t c = b * to + l;
          out[s * to + l] = c < C ? src[((i * src_blocks + c / from) * S + s) * from + c % from] : 0.0f;
        }
    }
  });
}

}  // namespace aoe::cpu
