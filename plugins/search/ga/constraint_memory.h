// What the GA has learnt of the device's constraints: for each knob value,
// how often the configs holding it were refused as invalid.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "genome.h"

namespace aoe::search::ga {

class ConstraintMemory {
 public:
  void reset(const std::vector<KnobShape>& knobs);
  void record(const Genome& g, bool invalid);
  // The share of refused configs among those holding the value, smoothed so
  // that a value seen once is not yet condemned (an unseen one is at 0.5).
  double invalid_rate(size_t knob, uint32_t value) const;
  // How readily mutation picks the value: values that keep breaking
  // constraints are drawn less, but never ruled out, since the fastest
  // tilings tend to sit right at the edge of what fits.
  double weight(size_t knob, uint32_t value) const;

 private:
  struct Count {
    uint32_t seen = 0;
    uint32_t invalid = 0;
  };
  std::vector<std::vector<Count>> counts_;
};

}  // namespace aoe::search::ga
