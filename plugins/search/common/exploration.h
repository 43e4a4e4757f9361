// How much of a search goes to configs drawn at random: a small space-filling
// design after the default config, then a share that grows while the search
// stalls. A local search that has settled in one basin keeps sampling the
// rest of the space as random search does, and moves to whatever beats its best.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "../ga/draw.h"

namespace aoe::search::common {

struct ExplorationParameters {
  uint64_t design = 0;      // random proposals right after the default: clamp(budget / 32, 3, 7)
  double floor = 0.05;      // share of random proposals while the search keeps improving
  double ceiling = 0.7;     // share once it has stalled for `patience` results
  uint64_t patience = 0;    // results without a new best for the full share: clamp(budget / 16, 8, 32)
  double improvement = 1e-3;  // a new best must beat the old one by this share
};

class Exploration {
 public:
  Exploration() = default;
  Exploration(ExplorationParameters p, uint64_t budget) : p_(p) {
    if (p_.design == 0) p_.design = std::clamp<uint64_t>(budget / 32, 3, 7);
    if (p_.patience == 0) p_.patience = std::clamp<uint64_t>(budget / 16, 8, 32);
    p_.floor = std::clamp(p_.floor, 0.0, 1.0);
    p_.ceiling = std::clamp(p_.ceiling, p_.floor, 1.0);
  }

  // Whether the next proposal should be a random config; call once per proposal.
  bool random_next(ga::Draw& draw) {
    if (designed_ < p_.design) {
      ++designed_;
      return true;
    }
    return draw.chance(share());
  }
  // Makes the design at least `n` proposals: a whole first batch, say.
  void widen_design(uint64_t n) { p_.design = std::max(p_.design, n); }
  // The design is proposed: the search proper has begun.
  bool designed() const { return designed_ >= p_.design; }

  // A result other than invalid; `time_us` infinite when it did not run.
  // True when it is a new best by the margin.
  bool record(double time_us) {
    if (time_us < best_ * (1 - p_.improvement)) {
      best_ = time_us;
      stale_ = 0;
      return true;
    }
    best_ = std::min(best_, time_us);
    ++stale_;
    return false;
  }

  double share() const {
    const double stalled = std::min(1.0, static_cast<double>(stale_) / static_cast<double>(p_.patience));
    return p_.floor + (p_.ceiling - p_.floor) * stalled;
  }

 private:
  ExplorationParameters p_;
  uint64_t designed_ = 0;
  uint64_t stale_ = 0;
  double best_ = std::numeric_limits<double>::infinity();
};

// Where random exploration draws: each knob's value with weight
// 1 / (1 + the results that held it + a quarter of the refusals), so
// exploration goes where the search has measured least and finds the basins
// a local search leaves alone. Refused configs cost nothing, and a value
// that was only refused may need other values to run (a split of the other
// axis runs only on fewer cores and without atomic add), so a refusal counts
// for less than a result: penalising such a value early would hide the very
// basin the local search cannot reach. Only a value refused `kCondemned`
// times without ever running (an implementation the op does not support) is
// drawn less than the knob's least novel value that runs, the less the more
// it was refused; never ruled out.
class ValueNovelty {
 public:
  ValueNovelty() = default;
  // `ordered[k]`: knob k's neighbouring values are alike (integers, powers of two).
  ValueNovelty(const std::vector<uint32_t>& sizes, std::vector<bool> ordered) : ordered_(std::move(ordered)) {
    for (uint32_t n : sizes) counts_.emplace_back(n);
  }

  // A result: `refused` when the device refused the config before running it.
  void record(const std::vector<uint32_t>& g, bool refused) {
    if (g.size() != counts_.size()) return;
    for (size_t k = 0; k < g.size(); ++k) ++(refused ? counts_[k][g[k]].refused : counts_[k][g[k]].measured);
  }

  std::vector<uint32_t> draw(ga::Draw& draw) const {
    constexpr double kRefusalWeight = 0.25;  // of a result
    constexpr uint32_t kCondemned = 32;
    std::vector<uint32_t> g(counts_.size());
    std::vector<double> weights;
    for (size_t k = 0; k < counts_.size(); ++k) {
      weights.assign(counts_[k].size(), -1);
      double least = 1;
      for (size_t v = 0; v < weights.size(); ++v) {
        const Count& c = counts_[k][v];
        if (c.measured == 0 && c.refused >= kCondemned) continue;
        weights[v] = 1.0 / (1.0 + c.measured + kRefusalWeight * c.refused);
        least = std::min(least, weights[v]);
      }
      for (size_t v = 0; v < weights.size(); ++v)
        if (weights[v] < 0) weights[v] = least / (1.0 + counts_[k][v].refused / 4.0);
      g[k] = static_cast<uint32_t>(draw.weighted(weights));
    }
    return g;
  }

  // A draw not yet seen, if one of a few draws is; the caller falls back to a uniform one.
  template <class Seen>
  std::optional<std::vector<uint32_t>> unseen(ga::Draw& d, const Seen& seen) const {
    constexpr int kTries = 32;
    for (int i = 0; i < kTries; ++i) {
      auto g = draw(d);
      if (!seen(g)) return g;
    }
    return std::nullopt;
  }

  // Of a few unseen draws, the farthest from `design` (a space-filling
  // design point: maximin over the draws), as the surrogate's design does.
  template <class Seen>
  std::optional<std::vector<uint32_t>> spread(ga::Draw& d, const Seen& seen,
                                              const std::vector<std::vector<uint32_t>>& design) const {
    constexpr int kDraws = 16;
    std::optional<std::vector<uint32_t>> best;
    double farthest = -1;
    for (int i = 0; i < kDraws; ++i) {
      auto g = unseen(d, seen);
      if (!g) break;
      double nearest = std::numeric_limits<double>::infinity();
      for (const auto& x : design) nearest = std::min(nearest, distance(*g, x));
      if (nearest > farthest) {
        farthest = nearest;
        best = std::move(g);
      }
    }
    return best;
  }

  // Over ordered knobs, the share of the knob's range between the values; a
  // differing categorical knob counts one.
  double distance(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) const {
    double d = 0;
    for (size_t k = 0; k < a.size() && k < b.size(); ++k) {
      if (a[k] == b[k]) continue;
      const double n = static_cast<double>(counts_[k].size());
      d += ordered_[k] && n > 1 ? std::abs(static_cast<double>(a[k]) - static_cast<double>(b[k])) / (n - 1) : 1.0;
    }
    return d;
  }

 private:
  struct Count {
    uint32_t measured = 0;
    uint32_t refused = 0;
  };
  std::vector<std::vector<Count>> counts_;  // per knob, per value
  std::vector<bool> ordered_;
};

}  // namespace aoe::search::common
