// The split as a tuning space for the searcher plugins: K-1 knobs, each the
// inclusive end of a segment (0..L-2) or L-1 for "no cut here". Every config
// is a valid split (cuts are sorted and merged), so no proposal is wasted on
// a refusal, and any searcher can walk it; the cost is symmetry (the same
// split has many configs), which the DP optimum beside it makes visible.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "aoe/sdk/measurement.h"
#include "aoe/sdk/searcher.h"
#include "aoe/sdk/tuning_space.h"
#include "split.h"

namespace aoe::gdat {

// With no segment limit the search still needs a fixed width.
constexpr int kUnlimitedSearchSegments = 16;

class SplitSpace {
 public:
  // default_split becomes the space's default config when it fits in max_segments.
  SplitSpace(size_t gradients, int max_segments, const Split& default_split);

  const aoe::sdk::TuningSpace& space() const { return space_; }
  size_t knobs() const { return space_.knobs.size(); }
  Split decode(const aoe::sdk::Config& config) const;
  // Throws std::invalid_argument when split has more segments than knobs + 1.
  aoe::sdk::Config encode(const Split& split) const;

 private:
  size_t count_;
  aoe::sdk::TuningSpace space_;
};

struct SearchLimits {
  uint64_t budget = 64;  // evaluations of the model
  uint64_t seed = 0;
  uint32_t batch = 8;    // proposals per round
};

struct SearchResult {
  Split best;
  double comm_end_us = std::numeric_limits<double>::infinity();
  uint64_t evaluations = 0;
  uint64_t refused = 0;  // over the bucket cap
  std::string stop_reason;
};

// evaluate: the end of the last allreduce for a split, or nothing when the
// split breaks a limit (the searcher sees it as invalid). Works with the
// SDK's SearcherClient and with a plugin's Searcher class alike.
template <class Searcher>
SearchResult search_split(Searcher& searcher, const SplitSpace& space,
                          const std::function<std::optional<double>(const Split&)>& evaluate,
                          const SearchLimits& limits, const std::function<bool()>& cancelled = {},
                          const std::function<void(uint64_t, double)>& progress = {}) {
  SearchResult r;
  searcher.start(space.space(), {limits.seed, limits.budget});
  const uint64_t max_refused = 50 * std::max<uint64_t>(limits.budget, 1);
  while (true) {
    if (cancelled && cancelled()) {
      r.stop_reason = "interrupted";
      break;
    }
    if (r.evaluations >= limits.budget) {
      r.stop_reason = "budget";
      break;
    }
    if (r.refused > max_refused) {
      r.stop_reason = "too many invalid configs";
      break;
    }
    const auto batch = searcher.propose(std::min<uint64_t>(limits.batch, limits.budget - r.evaluations));
    if (batch.empty()) {
      r.stop_reason = "searcher done";
      break;
    }
    for (const auto& config : batch) {
      if (!space.space().in_domain(config)) {
        ++r.refused;
        searcher.observe(config, aoe::sdk::Measurement::failed(aoe::sdk::ResultStatus::invalid, "outside the space"));
        continue;
      }
      const Split split = space.decode(config);
      const auto end = evaluate(split);
      if (!end) {
        ++r.refused;
        searcher.observe(config, aoe::sdk::Measurement::failed(aoe::sdk::ResultStatus::invalid, "bucket over the cap"));
        continue;
      }
      ++r.evaluations;
      searcher.observe(config, aoe::sdk::Measurement::timed(*end));
      if (*end < r.comm_end_us || (*end == r.comm_end_us && split.size() < r.best.size()))
        r.comm_end_us = *end, r.best = split;
    }
    if (progress) progress(r.evaluations, r.comm_end_us);
  }
  return r;
}

}  // namespace aoe::gdat
