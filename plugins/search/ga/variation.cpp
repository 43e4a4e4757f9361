#include "variation.h"

namespace aoe::search::ga {

Variation::Variation(std::vector<KnobShape> knobs, double rate, double neighbour)
    : knobs_(std::move(knobs)), rate_(rate), neighbour_(neighbour) {
  for (size_t k = 0; k < knobs_.size(); ++k)
    if (knobs_[k].size > 1) mutable_.push_back(k);
}

Genome Variation::random(const ConstraintMemory& memory, Draw& draw) const {
  Genome g(knobs_.size());
  std::vector<uint32_t> all;
  for (size_t k = 0; k < knobs_.size(); ++k) {
    all.resize(knobs_[k].size);
    for (uint32_t v = 0; v < knobs_[k].size; ++v) all[v] = v;
    g[k] = pick(k, all, memory, draw);
  }
  return g;
}

Genome Variation::crossover(const Genome& a, const Genome& b, Draw& draw) const {
  Genome g(a.size());
  for (size_t k = 0; k < a.size(); ++k) g[k] = draw.below(2) == 0 ? a[k] : b[k];
  return g;
}

void Variation::mutate(Genome& g, const ConstraintMemory& memory, Draw& draw) const {
  for (size_t k : mutable_)
    if (draw.chance(rate_)) g[k] = new_value(k, g[k], memory, draw);
}

void Variation::mutate_one(Genome& g, const ConstraintMemory& memory, Draw& draw) const {
  if (mutable_.empty()) return;
  const size_t k = mutable_[draw.below(mutable_.size())];
  g[k] = new_value(k, g[k], memory, draw);
}

// Ordered knobs mostly step to a neighbour: a tiling's cost changes smoothly
// along them. The other moves, and categorical ones, jump to any other value.
uint32_t Variation::new_value(size_t knob, uint32_t current, const ConstraintMemory& memory, Draw& draw) const {
  const uint32_t size = knobs_[knob].size;
  std::vector<uint32_t> options;
  if (knobs_[knob].ordered && draw.chance(neighbour_)) {
    if (current > 0) options.push_back(current - 1);
    if (current + 1 < size) options.push_back(current + 1);
  } else {
    for (uint32_t v = 0; v < size; ++v)
      if (v != current) options.push_back(v);
  }
  return pick(knob, options, memory, draw);
}

uint32_t Variation::pick(size_t knob, const std::vector<uint32_t>& options, const ConstraintMemory& memory,
                         Draw& draw) {
  std::vector<double> weights;
  weights.reserve(options.size());
  for (uint32_t v : options) weights.push_back(memory.weight(knob, v));
  return options[draw.weighted(weights)];
}

}  // namespace aoe::search::ga
