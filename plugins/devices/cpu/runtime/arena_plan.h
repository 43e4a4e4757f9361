// Buffers placed in one arena by lifetime: two whose lifetimes do not
// overlap may share memory, so a model's peak is what is live at once, not
// the sum of every buffer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace aoe::cpu {

struct Lifetime {
  size_t first = 0;  // the step that writes the buffer
  size_t last = 0;   // the last step that reads it (inclusive)
  int64_t elements = 0;
};

struct ArenaPlan {
  std::vector<int64_t> offsets;  // per buffer, in floats, each a multiple of a cache line
  int64_t elements = 0;          // the arena's size
};

// First fit, buffers placed in the order given: each at the lowest offset
// clear of every placed buffer whose lifetime overlaps its own.
ArenaPlan plan_arena(const std::vector<Lifetime>& buffers);

}  // namespace aoe::cpu
