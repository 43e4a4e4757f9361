// A config as the GA breeds it: for each knob, the index of its value in the
// knob's ascending domain, so "a neighbouring value" is one step away.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace aoe::search::ga {

using Genome = std::vector<uint32_t>;

// What variation needs to know of a knob.
struct KnobShape {
  uint32_t size = 0;     // values in its domain
  bool ordered = false;  // integer or power of two: adjacent values are alike
};

}  // namespace aoe::search::ga
