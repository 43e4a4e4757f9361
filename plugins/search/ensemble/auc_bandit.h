// A multi-armed bandit with area-under-the-curve credit, as OpenTuner's
// AUCBanditMetaTechnique shares a budget among search techniques (Fialho et
// al., "Comparison-based adaptive strategy selection with bandits in
// differential evolution"): each use of an arm in a sliding window is a 1 if
// it gave a new best, and later uses weigh more.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <limits>
#include <vector>

namespace aoe::search::ensemble {

class AucBandit {
 public:
  AucBandit() = default;
  // `exploration`: the weight C of the exploration term.
  AucBandit(size_t arms, size_t window, double exploration)
      : window_(window == 0 ? 1 : window),
        exploration_(exploration),
        uses_(arms, 0),
        auc_sum_(arms, 0),
        auc_decay_(arms, 0) {}

  // One use of `arm`: whether it produced a new best.
  void record(size_t arm, bool new_best) {
    history_.push_back({arm, new_best});
    ++uses_[arm];
    if (new_best) {
      auc_sum_[arm] += uses_[arm];
      ++auc_decay_[arm];
    }
    if (history_.size() > window_) {
      const Use old = history_.front();
      history_.pop_front();
      --uses_[old.arm];
      auc_sum_[old.arm] -= auc_decay_[old.arm];
      if (old.new_best) --auc_decay_[old.arm];
    }
  }

  // The arm's credit in [0, 1]: its uses in the window, numbered 1.. oldest
  // first, the numbers of those that gave a new best summed, over their total.
  double exploitation(size_t arm) const {
    const auto n = static_cast<double>(uses_[arm]);
    return uses_[arm] == 0 ? 0.0 : static_cast<double>(auc_sum_[arm]) * 2.0 / (n * (n + 1.0));
  }
  // UCB1's term: large for an arm used little lately. Unused arms come first.
  double score(size_t arm) const {
    if (uses_[arm] == 0) return std::numeric_limits<double>::infinity();
    const double explore =
        std::sqrt(2.0 * std::log2(static_cast<double>(history_.size())) / static_cast<double>(uses_[arm]));
    return exploitation(arm) + exploration_ * explore;
  }

  size_t arms() const { return uses_.size(); }
  uint64_t uses(size_t arm) const { return uses_[arm]; }

 private:
  struct Use {
    size_t arm;
    bool new_best;
  };
  size_t window_ = 500;
  double exploration_ = 0.05;
  std::deque<Use> history_;
  std::vector<uint64_t> uses_;       // in the window
  std::vector<uint64_t> auc_sum_;    // sum of the window positions of its new bests
  std::vector<uint64_t> auc_decay_;  // its new bests in the window: what the sum loses when the oldest use leaves
};

}  // namespace aoe::search::ensemble
