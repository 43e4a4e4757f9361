#include "exhaustive_searcher.h"

#include <algorithm>
#include <limits>

#include "../common/hyperparameters.h"

namespace aoe::search {
namespace {

// Bounds the proposals of a space where almost everything is refused as
// invalid: those cost no budget, so the budget alone would not end the walk.
constexpr uint64_t kProposalsPerBudget = 50;

uint64_t saturating_mul(uint64_t a, uint64_t b) {
  return b != 0 && a > std::numeric_limits<uint64_t>::max() / b ? std::numeric_limits<uint64_t>::max() : a * b;
}

}  // namespace

ExhaustiveSearcher::ExhaustiveSearcher(const sdk::CreateArgs& args) {
  common::read_hyperparameters("exhaustive", args.options, {});
}

void ExhaustiveSearcher::start(const sdk::TuningSpace& space, const sdk::SearchOptions& options) {
  coding_ = common::SpaceCoding(space);
  walk_done_ = coding_.empty();
  cursor_.assign(coding_.knobs(), 0);
  const auto default_digits = coding_.encode(space.default_config);
  default_first_ = !walk_done_ && default_digits;
  default_ = default_digits.value_or(Digits{});
  default_proposed_ = false;
  budget_ = options.budget;
  max_proposals_ = saturating_mul(budget_, kProposalsPerBudget);
  proposed_ = 0;
  measured_ = 0;
  pending_.clear();
  observed_.clear();
  observed_ahead_.clear();
}

std::vector<sdk::Config> ExhaustiveSearcher::propose(size_t max_count) {
  std::vector<sdk::Config> out;
  while (out.size() < max_count && room() > 0) {
    sdk::Config c;
    if (default_first_ && !default_proposed_) {
      default_proposed_ = true;
      c = coding_.decode(default_);
      if (observed_ahead_.erase(c)) continue;
    } else if (!next_in_walk(c)) {
      break;
    }
    pending_.insert(c);
    ++proposed_;
    out.push_back(std::move(c));
  }
  return out;
}

void ExhaustiveSearcher::observe(const sdk::Config& config, const sdk::Measurement& result) {
  if (!observed_.insert(config).second) return;  // told twice: the first result stands, charged once
  // A config the device refused before running it cost no measurement.
  if (result.status != sdk::ResultStatus::invalid) ++measured_;
  if (pending_.erase(config)) return;
  // Measured by someone else before the walk reached it: no need to measure it again.
  const auto d = coding_.encode(config);
  if (!d) return;
  const bool proposed = default_first_ && *d == default_ ? default_proposed_ : walked_past(*d);
  if (!proposed) observed_ahead_.insert(config);
}

// Measurements left: those observed (but for invalid ones) and those
// still out count against the budget.
uint64_t ExhaustiveSearcher::room() const {
  const uint64_t used = measured_ + pending_.size();
  if (used >= budget_ || proposed_ >= max_proposals_) return 0;
  return std::min(budget_ - used, max_proposals_ - proposed_);
}

bool ExhaustiveSearcher::next_in_walk(sdk::Config& out) {
  while (!walk_done_) {
    const Digits d = cursor_;
    walk_done_ = !advance();
    if (default_first_ && d == default_) continue;
    sdk::Config c = coding_.decode(d);
    if (observed_ahead_.erase(c)) continue;
    out = std::move(c);
    return true;
  }
  return false;
}

// One step of the mixed-radix counter, first knob fastest; false once it wraps.
bool ExhaustiveSearcher::advance() {
  for (size_t i = 0; i < cursor_.size(); ++i) {
    if (++cursor_[i] < coding_.size(i)) return true;
    cursor_[i] = 0;
  }
  return false;
}

// Whether the walk has already produced `d`: its last knob is the most significant digit.
bool ExhaustiveSearcher::walked_past(const Digits& d) const {
  if (walk_done_) return true;
  for (size_t i = d.size(); i-- > 0;)
    if (d[i] != cursor_[i]) return d[i] < cursor_[i];
  return false;
}

}  // namespace aoe::search
