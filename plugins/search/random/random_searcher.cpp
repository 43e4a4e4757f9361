#include "random_searcher.h"

#include <algorithm>

#include "../common/hyperparameters.h"

namespace aoe::search {

RandomSearcher::RandomSearcher(const sdk::CreateArgs& args) {
  common::read_hyperparameters("random", args.options, {});
}

void RandomSearcher::start(const sdk::TuningSpace& space, const sdk::SearchOptions& options) {
  domains_.clear();
  for (const auto& knob : space.knobs) domains_.push_back(knob.values);
  constexpr uint64_t kIndexable = uint64_t{1} << 63;
  size_ = 1;
  indexed_ = true;
  for (const auto& d : domains_) {
    if (d.empty()) {
      size_ = 0;
      indexed_ = true;
      break;
    }
    if (indexed_ && size_ > kIndexable / d.size()) indexed_ = false;
    if (indexed_) size_ *= d.size();
  }
  budget_ = options.budget;
  proposed_ = drawn_ = measured_ = 0;
  rng_.seed(options.seed);
  moved_.clear();
  seen_.clear();
  outstanding_.clear();
  observed_.clear();
}

// Invalid configs were refused before running: they do not spend the budget.
std::vector<sdk::Config> RandomSearcher::propose(size_t max_count) {
  const uint64_t charged = measured_ + outstanding_.size();
  uint64_t left = budget_ > charged ? budget_ - charged : 0;
  const uint64_t max_proposals = kProposalsPerBudget * std::max<uint64_t>(budget_, 1);
  left = std::min(left, max_proposals > proposed_ ? max_proposals - proposed_ : 0);
  if (indexed_) left = std::min(left, size_ - drawn_);
  const uint64_t count = std::min<uint64_t>(max_count, left);
  std::vector<sdk::Config> out;
  out.reserve(count);
  for (uint64_t i = 0; i < count; ++i) {
    auto c = indexed_ ? next_indexed() : next_sampled();
    if (!c) break;
    outstanding_.insert(*c);
    out.push_back(std::move(*c));
    ++proposed_;
  }
  return out;
}

// Uniform in [0, n): rejection keeps it unbiased, and unlike
// std::uniform_int_distribution it draws the same on every standard library.
uint64_t RandomSearcher::below(uint64_t n) {
  const uint64_t reject_under = (0 - n) % n;  // 2^64 mod n
  uint64_t x = rng_();
  while (x < reject_under) x = rng_();
  return x % n;
}

// Step `drawn_` of a Fisher-Yates shuffle of all indices, storing only the
// entries it has moved: exact sampling without replacement in memory
// proportional to the draws, whatever the size of the space. Configs
// measured elsewhere are passed over; none is left once the shuffle ends.
std::optional<sdk::Config> RandomSearcher::next_indexed() {
  auto at = [&](uint64_t k) {
    auto it = moved_.find(k);
    return it == moved_.end() ? k : it->second;
  };
  while (drawn_ < size_) {
    const uint64_t i = drawn_++;
    const uint64_t j = i + below(size_ - i);
    const uint64_t picked = at(j);
    const uint64_t displaced = at(i);
    moved_[j] = displaced;
    moved_.erase(i);
    sdk::Config c = decode(picked);
    if (!observed_.count(c)) return c;
  }
  return std::nullopt;
}

// A space past 2^63 configs: repeats are so rare that redrawing is cheap.
sdk::Config RandomSearcher::next_sampled() {
  for (;;) {
    sdk::Config c;
    c.reserve(domains_.size());
    for (const auto& d : domains_) c.push_back(d[below(d.size())]);
    if (!observed_.count(c) && seen_.insert(c).second) return c;
  }
}

// Mixed radix, first knob fastest.
sdk::Config RandomSearcher::decode(uint64_t index) const {
  sdk::Config c;
  c.reserve(domains_.size());
  for (const auto& d : domains_) {
    c.push_back(d[index % d.size()]);
    index /= d.size();
  }
  return c;
}

void RandomSearcher::observe(const sdk::Config& config, const sdk::Measurement& result) {
  if (!observed_.insert(config).second) return;  // told twice: the first result stands, charged once
  outstanding_.erase(config);
  if (result.status != sdk::ResultStatus::invalid) ++measured_;
}

}  // namespace aoe::search
