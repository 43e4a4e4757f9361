// Exhaustive search: every config of a tuning space in mixed-radix order
// (first knob fastest), the device's default first, until the budget or the
// space runs out. A baseline, and the way to find a space's true optimum.
#pragma once

#include <cstdint>
#include <set>
#include <vector>

#include "../common/space_coding.h"
#include "aoe/sdk/component.h"
#include "aoe/sdk/searcher.h"

namespace aoe::search {

class ExhaustiveSearcher final : public sdk::Searcher {
 public:
  ExhaustiveSearcher() = default;
  // --searcher_options: it has no hyperparameters, so any key is refused.
  explicit ExhaustiveSearcher(const sdk::CreateArgs& args);

  void start(const sdk::TuningSpace& space, const sdk::SearchOptions& options) override;
  std::vector<sdk::Config> propose(size_t max_count) override;
  void observe(const sdk::Config& config, const sdk::Measurement& result) override;

 private:
  using Digits = common::Genome;  // a config as indices into each knob's values

  uint64_t room() const;
  bool next_in_walk(sdk::Config& out);
  bool advance();
  bool walked_past(const Digits& d) const;

  common::SpaceCoding coding_;
  Digits cursor_;  // the next config of the walk
  bool walk_done_ = true;
  bool default_first_ = false;  // the default is in the space: proposed first, skipped in the walk
  bool default_proposed_ = false;
  Digits default_;
  uint64_t budget_ = 0;
  uint64_t max_proposals_ = 0;
  uint64_t proposed_ = 0;
  uint64_t measured_ = 0;                 // observations other than `invalid`
  std::set<sdk::Config> pending_;         // proposed, not yet observed
  std::set<sdk::Config> observed_;        // every config with a result: charged once
  std::set<sdk::Config> observed_ahead_;  // observed though the walk had not reached them: skipped
};

}  // namespace aoe::search
