// The channel-blocked layout (NCHWc): [N][ceil(C/c)][spatial][c], with the
// last block zero-padded. Conversions run outside timing, as a runtime
// that keeps activations blocked between ops would not pay them per op.
#pragma once

#include <cstdint>

namespace aoe::cpu {

// src [n][channels][spatial] -> dst [n][blocks][spatial][lanes]
void to_blocked(const float* src, float* dst, int64_t n, int64_t channels, int64_t spatial, int lanes);
// src [n][blocks][spatial][lanes] -> dst [n][channels][spatial]
void from_blocked(const float* src, float* dst, int64_t n, int64_t channels, int64_t spatial, int lanes);

inline int64_t channel_blocks(int64_t channels, int lanes) { return (channels + lanes - 1) / lanes; }

}  // namespace aoe::cpu
