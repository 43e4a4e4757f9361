// The GA's variation operators: random individuals, uniform crossover and
// per-knob mutation steered away from values that break constraints.
#pragma once

#include <vector>

#include "constraint_memory.h"
#include "draw.h"
#include "genome.h"

namespace aoe::search::ga {

class Variation {
 public:
  Variation() = default;
  // `rate`: the chance each knob mutates; `neighbour`: for ordered knobs,
  // the share of mutations that step to an adjacent value.
  Variation(std::vector<KnobShape> knobs, double rate, double neighbour);

  // Each knob drawn on its own, values that break constraints less often.
  Genome random(const ConstraintMemory& memory, Draw& draw) const;
  // Each knob from either parent, evenly.
  Genome crossover(const Genome& a, const Genome& b, Draw& draw) const;
  // Each knob that has a choice mutates with probability `rate`.
  void mutate(Genome& g, const ConstraintMemory& memory, Draw& draw) const;
  // Exactly one knob that has a choice changes, if there is one.
  void mutate_one(Genome& g, const ConstraintMemory& memory, Draw& draw) const;

 private:
  uint32_t new_value(size_t knob, uint32_t current, const ConstraintMemory& memory, Draw& draw) const;
  static uint32_t pick(size_t knob, const std::vector<uint32_t>& options, const ConstraintMemory& memory, Draw& draw);

  std::vector<KnobShape> knobs_;
  std::vector<size_t> mutable_;  // knobs with more than one value
  double rate_ = 0;
  double neighbour_ = 0;
};

}  // namespace aoe::search::ga
