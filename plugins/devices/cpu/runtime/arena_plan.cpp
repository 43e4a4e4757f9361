#include "arena_plan.h"

#include <algorithm>
#include <utility>

namespace aoe::cpu {
namespace {

constexpr int64_t kLine = 16;  // floats in a 64-byte cache line

int64_t rounded(int64_t elements) { return (std::max<int64_t>(elements, 1) + kLine - 1) / kLine * kLine; }

bool overlap(const Lifetime& a, const Lifetime& b) { return a.first <= b.last && b.first <= a.last; }

}  // namespace

ArenaPlan plan_arena(const std::vector<Lifetime>& buffers) {
  ArenaPlan plan;
  plan.offsets.resize(buffers.size());
  for (size_t i = 0; i < buffers.size(); ++i) {
    std::vector<std::pair<int64_t, int64_t>> taken;  // [begin, end) of live neighbours
    for (size_t j = 0; j < i; ++j)
      if (overlap(buffers[i], buffers[j]))
        taken.emplace_back(plan.offsets[j], plan.offsets[j] + rounded(buffers[j].elements));
    std::sort(taken.begin(), taken.end());
    const int64_t size = rounded(buffers[i].elements);
    int64_t at = 0;
    for (const auto& [begin, end] : taken) {
      if (at + size <= begin) break;
      at = std::max(at, end);
    }
    plan.offsets[i] = at;
    plan.elements = std::max(plan.elements, at + size);
  }
  return plan;
}

}  // namespace aoe::cpu
