// SPDX-License-Identifier: Apache-2.0
// What a searcher plugin author implements: ask/tell over a tuning space.
#pragma once

#include <cstdint>
#include <vector>

#include "aoe/sdk/measurement.h"
#include "aoe/sdk/tuning_space.h"

namespace aoe::sdk {

struct SearchOptions {
  uint64_t seed = 0;
  // Measurements at most: a config observed as `invalid` (refused by the
  // device's constraint check, never run) does not count; a searcher still
  // ends after 50 x budget proposals, so a space of invalid configs ends.
  uint64_t budget = 64;
};

class Searcher {
 public:
  virtual ~Searcher() = default;
  virtual void start(const TuningSpace& space, const SearchOptions& options) = 0;
  // Up to max_count configs to evaluate next; none means the search is over.
  // The same seed and the same observations must give the same proposals.
  virtual std::vector<Config> propose(size_t max_count) = 0;
  // Failed results (status other than ok) carry no time.
  virtual void observe(const Config& config, const Measurement& result) = 0;
};

}  // namespace aoe::sdk
