// Uniform random search: draws configs from a tuning space without
// replacement, knowing nothing of the device behind it.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <set>
#include <unordered_map>
#include <vector>

#include "aoe/sdk/component.h"
#include "aoe/sdk/searcher.h"

namespace aoe::search {

class RandomSearcher final : public sdk::Searcher {
 public:
  RandomSearcher() = default;
  // --searcher_options: it has no hyperparameters, so any key is refused.
  explicit RandomSearcher(const sdk::CreateArgs& args);

  void start(const sdk::TuningSpace& space, const sdk::SearchOptions& options) override;
  std::vector<sdk::Config> propose(size_t max_count) override;
  // Results do not steer uniform sampling; invalid ones give back budget. A
  // config measured without being proposed here (a warm start, or another
  // searcher's) counts against the budget and is never proposed. A second
  // result for a config is ignored: it was charged once.
  void observe(const sdk::Config& config, const sdk::Measurement& result) override;

 private:
  uint64_t below(uint64_t n);
  std::optional<sdk::Config> next_indexed();
  sdk::Config next_sampled();
  sdk::Config decode(uint64_t index) const;

  std::vector<std::vector<int64_t>> domains_;
  uint64_t size_ = 0;        // configs in the space, when it fits in 63 bits
  bool indexed_ = true;      // else too large to index: sample knobs, skip repeats
  uint64_t budget_ = 0;
  uint64_t proposed_ = 0;
  uint64_t drawn_ = 0;     // steps of the shuffle taken, configs measured elsewhere included
  uint64_t measured_ = 0;  // observed results but invalid ones, which were refused before running
  // Ends a search whose proposals the device keeps refusing.
  static constexpr uint64_t kProposalsPerBudget = 50;
  std::mt19937_64 rng_;
  std::unordered_map<uint64_t, uint64_t> moved_;  // the displaced entries of a lazy Fisher-Yates shuffle
  std::set<sdk::Config> seen_;                    // sampled configs only
  std::set<sdk::Config> outstanding_;             // proposed, not yet observed
  std::set<sdk::Config> observed_;                // ours or not: never proposed again, charged once
};

}  // namespace aoe::search
