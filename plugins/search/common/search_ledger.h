// What a searcher has proposed and learnt, and the budget it has left: every
// config proposed or observed (never proposed again), with its outcome.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "../ga/draw.h"
#include "aoe/sdk/measurement.h"
#include "space_coding.h"

namespace aoe::search::common {

enum class Outcome { pending, ok, failed, invalid };

struct Entry {
  Outcome outcome = Outcome::pending;
  double time_us = std::numeric_limits<double>::infinity();  // ok results only
};

class Ledger {
 public:
  // Bounds the proposals of a space where almost everything is refused as
  // invalid: those cost no budget, so the budget alone would not end the search.
  static constexpr uint64_t kProposalsPerBudget = 50;

  void reset(uint64_t budget, uint64_t space_size, bool countable) {
    entries_.clear();
    outside_.clear();
    budget_ = budget;
    max_proposals_ = budget > std::numeric_limits<uint64_t>::max() / kProposalsPerBudget
                         ? std::numeric_limits<uint64_t>::max()
                         : budget * kProposalsPerBudget;
    space_size_ = space_size;
    countable_ = countable;
    proposed_ = measured_ = pending_ = 0;
  }

  // Configs that may still be proposed: the budget less the measurements
  // observed (but invalid ones) and those still out, within the proposal cap.
  uint64_t room() const {
    const uint64_t used = measured_ + pending_;
    if (used >= budget_ || proposed_ >= max_proposals_) return 0;
    return std::min(budget_ - used, max_proposals_ - proposed_);
  }

  bool seen(const Genome& g) const { return entries_.count(g) != 0; }
  const Entry* find(const Genome& g) const {
    const auto it = entries_.find(g);
    return it == entries_.end() ? nullptr : &it->second;
  }
  // Every config of the space has been proposed or observed.
  bool exhausted() const { return countable_ && entries_.size() >= space_size_; }
  const std::map<Genome, Entry>& entries() const { return entries_; }

  void issue(const Genome& g) {
    entries_.try_emplace(g);
    ++proposed_;
    ++pending_;
  }

  // Records a result; false when the config already had one, which stands
  // and was charged already: a repeated report spends no budget. Results of
  // configs not proposed here (a warm start) count as knowledge and as
  // measurements.
  bool observe(const Genome& g, const sdk::Measurement& m) {
    const bool refused = m.status == sdk::ResultStatus::invalid;
    auto [it, added] = entries_.try_emplace(g);
    Entry& e = it->second;
    if (!added && e.outcome != Outcome::pending) return false;
    if (!added) --pending_;
    if (!refused) ++measured_;
    e.outcome = refused ? Outcome::invalid : m.ok() ? Outcome::ok : Outcome::failed;
    if (m.ok()) e.time_us = m.time_us;
    return true;
  }
  // A result for a config outside the space still spends the budget, once.
  void observe_outside(const sdk::Config& c, const sdk::Measurement& m) {
    if (outside_.insert(c).second && m.status != sdk::ResultStatus::invalid) ++measured_;
  }

  // The config's genome when its result is news to the ledger: none for a
  // config outside the space or one that had a result already (each charged
  // as observe_outside() and observe() say).
  std::optional<Genome> record(const SpaceCoding& space, const sdk::Config& c, const sdk::Measurement& m) {
    auto g = space.encode(c);
    if (!g) {
      observe_outside(c, m);
      return std::nullopt;
    }
    if (!observe(*g, m)) return std::nullopt;
    return g;
  }

  // A config not yet proposed or observed, uniformly; none once all are.
  std::optional<Genome> random_unseen(const SpaceCoding& space, ga::Draw& draw) const {
    constexpr int kRandomTries = 32;
    if (space.empty() || exhausted()) return std::nullopt;
    // Past 2^63 configs the records can never fill the space: drawing always ends.
    for (int i = 0; i < kRandomTries || !space.countable(); ++i) {
      Genome g = space.random(draw);
      if (!seen(g)) return g;
    }
    // A nearly exhausted space: walk it from a random place.
    const uint64_t n = space.size();
    const uint64_t start = draw.below(n);
    for (uint64_t i = 0; i < n; ++i) {
      Genome g = space.at((start + i) % n);
      if (!seen(g)) return g;
    }
    return std::nullopt;
  }

  uint64_t budget() const { return budget_; }
  uint64_t measured() const { return measured_; }
  uint64_t pending() const { return pending_; }
  uint64_t proposed() const { return proposed_; }

 private:
  std::map<Genome, Entry> entries_;
  std::set<sdk::Config> outside_;  // configs outside the space that were reported
  uint64_t budget_ = 0;
  uint64_t max_proposals_ = 0;
  uint64_t space_size_ = 0;
  bool countable_ = true;
  uint64_t proposed_ = 0;
  uint64_t measured_ = 0;  // observed results but invalid ones
  uint64_t pending_ = 0;   // proposed, not yet observed
};

// Who made proposal g (an ensemble's member, an annealing chain), taken off
// `out`, the proposals still out; `none` where g is not one of them.
inline size_t take_proposer(std::map<Genome, size_t>& out, const Genome& g, size_t none) {
  const auto it = out.find(g);
  if (it == out.end()) return none;
  const size_t proposer = it->second;
  out.erase(it);
  return proposer;
}

}  // namespace aoe::search::common
