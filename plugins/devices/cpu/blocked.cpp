#include "blocked.h"

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

void Relayout::run(ThreadPool& pool, int threads) const {
  const int64_t C = channels, S = spatial;
  const int64_t src_blocks = from > 0 ? channel_blocks(C, from) : 0;
  // The source element of image i, channel c, pixel s.
  auto at = [&](int64_t i, int64_t c, int64_t s) -> float {
    if (from == 0) return src[(i * C + c) * S + s];
    return src[((i * src_blocks + c / from) * S + s) * from + c % from];
  };
  if (to == 0) {
    pool.run(n * C, threads, [&](int64_t plane, int) {
      const int64_t i = plane / C, c = plane % C;
      float* out = dst + plane * S;
      if (from == 0) {
        for (int64_t s = 0; s < S; ++s) out[s] = src[plane * S + s];
      } else {
        const float* in = src + ((i * src_blocks + c / from) * S) * from + c % from;
        for (int64_t s = 0; s < S; ++s) out[s] = in[s * from];
      }
    });
    return;
  }
  const int64_t blocks = channel_blocks(C, to);
  pool.run(n * blocks, threads, [&](int64_t plane, int) {
    const int64_t i = plane / blocks, b = plane % blocks;
    float* out = dst + plane * S * to;
    for (int l = 0; l < to; ++l) {
      const int64_t c = b * to + l;
      if (c >= C) {
        for (int64_t s = 0; s < S; ++s) out[s * to + l] = 0.0f;
      } else if (from == 0) {
        const float* in = src + (i * C + c) * S;
        for (int64_t s = 0; s < S; ++s) out[s * to + l] = in[s];
      } else {
        for (int64_t s = 0; s < S; ++s) out[s * to + l] = at(i, c, s);
      }
    }
  });
}

}  // namespace aoe::cpu
