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

}  // namespace aoe::cpu
