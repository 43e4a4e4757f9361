// The channel-blocked layout (NCHWc): [N][ceil(C/c)][spatial][c], with the
// last block zero-padded. A task marks a tensor "NCHWc" when it arrives or
// leaves blocked; c is then the lanes of the widest ISA the device runs.
#pragma once

#include <cstdint>

#include "thread_pool.h"

namespace aoe::cpu {

// src [n][channels][spatial] -> dst [n][blocks][spatial][lanes]
void to_blocked(const float* src, float* dst, int64_t n, int64_t channels, int64_t spatial, int lanes);
// src [n][blocks][spatial][lanes] -> dst [n][channels][spatial]
void from_blocked(const float* src, float* dst, int64_t n, int64_t channels, int64_t spatial, int lanes);

inline int64_t channel_blocks(int64_t channels, int lanes) { return (channels + lanes - 1) / lanes; }

// Floats a tensor takes in a layout: 0 lanes is plain [n][channels][spatial].
inline int64_t layout_elements(int64_t n, int64_t channels, int64_t spatial, int lanes) {
  return lanes > 0 ? n * channel_blocks(channels, lanes) * lanes * spatial : n * channels * spatial;
}

// One tensor from one layout into another (0 lanes: plain), in parallel
// over the destination's planes: the conversion a runtime runs between
// kernels that take different layouts. Padding lanes are written as zero.
struct Relayout {
  const float* src = nullptr;
  float* dst = nullptr;
  int from = 0, to = 0;  // lanes, 0 for plain
  int64_t n = 1, channels = 1, spatial = 1;

  void run(ThreadPool& pool, int threads) const;
};

}  // namespace aoe::cpu
