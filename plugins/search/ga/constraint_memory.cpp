#include "constraint_memory.h"

#include <algorithm>

namespace aoe::search::ga {
namespace {

constexpr double kWeightFloor = 0.05;

}  // namespace

void ConstraintMemory::reset(const std::vector<KnobShape>& knobs) {
  counts_.clear();
  for (const auto& k : knobs) counts_.emplace_back(k.size);
}

void ConstraintMemory::record(const Genome& g, bool invalid) {
  for (size_t k = 0; k < g.size(); ++k) {
    Count& c = counts_[k][g[k]];
    ++c.seen;
    if (invalid) ++c.invalid;
  }
}

double ConstraintMemory::invalid_rate(size_t knob, uint32_t value) const {
  const Count& c = counts_[knob][value];
  return (c.invalid + 1.0) / (c.seen + 2.0);
}

double ConstraintMemory::weight(size_t knob, uint32_t value) const {
  return std::max(kWeightFloor, 1.0 - invalid_rate(knob, value));
}

}  // namespace aoe::search::ga
