#include "rl_searcher.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>

#include "../common/hyperparameters.h"
#include "../common/neighbourhood.h"

namespace aoe::search {
namespace {

// A config that did not run scores this far below the baseline (the running
// mean reward of configs that ran), and at most a 1.28x slow-down from the
// default. Below the baseline, so it always pushes the policy away from the
// values that drew it; not a fixed score, because where most configs that
// run are slower than the default a fixed score ranks refused configs above
// them and draws the policy into the refused region. Small, so the policy
// does not flee the buffers' edges, where the fastest tilings usually lie.
constexpr double kFailMargin = 0.25;
constexpr double kAverageRate = 0.3;     // of the baseline and the advantage scale
constexpr double kAdvantageClip = 3.0;   // in scale units: one outlier must not swamp a batch
constexpr double kMinScale = 0.01;       // 1% in log time: below it, differences are noise
constexpr int kResamples = 32;           // policy draws before falling back to the nearest unseen config
constexpr uint64_t kProposalsPerBudget = 50;
// Policy draws in a row that did not run before the policy is pulled back to
// the best config that ran: it has wandered where nothing runs, and the
// gradient alone leaves such a region slowly while every draw there is free.
constexpr uint64_t kMissesBeforeRecentre = 16;
constexpr double kRecentreKeep = 0.5;  // of each learned logit
// A random draw that beats everything leans the policy toward it, keeping
// most of what it has learnt: the draw is one result, not a lost region.
constexpr double kLeanKeep = 0.9;
// The most of the proposals drawn at random, once the policy has stalled: the
// policy, not chance, is what this searcher is about.
constexpr double kExploreCeiling = 0.5;
// The share of the other proposals that try a neighbour of the best config
// rather than a policy draw: the policy spreads its mass over whole value
// ranges and so reaches the last few percent near the best config slowly,
// where one-knob steps from it get there in a few results.
constexpr double kLocalShare = 0.4;
constexpr int kLocalTries = 16;  // random moves from the best config before giving up on a local step

// A time that is not a positive number cannot be a speed-up: it scores as a failure.
bool timed(const sdk::Measurement& m) { return m.ok() && std::isfinite(m.time_us) && m.time_us > 0; }

}  // namespace

RlSearcher::RlSearcher(const sdk::CreateArgs& args) {
  auto& p = settings_;
  common::read_hyperparameters("rl", args.options,
                               {{"ordinal_rate", &p.ordinal_rate, 0, 1000},
                                {"categorical_rate", &p.categorical_rate, 0, 1000},
                                {"entropy_weight", &p.entropy_weight, 0, 100},
                                {"prior_weight", &p.prior_weight, 0, 100},
                                {"kernel_fraction", &p.kernel_fraction, 0, 1}});
}

void RlSearcher::start(const sdk::TuningSpace& space, const sdk::SearchOptions& options) {
  domains_.clear();
  ordinal_.clear();
  std::vector<AutoregressivePolicy::KnobShape> shapes;
  for (const auto& knob : space.knobs) {
    domains_.push_back(knob.values);
    ordinal_.push_back(knob.kind != sdk::DomainKind::categorical);
    shapes.push_back({knob.values.size(), ordinal_.back()});
  }
  space_size_ = space.size();
  default_.reset();
  if (space_size_ > 0 && space.in_domain(space.default_config)) default_ = space.default_config;
  policy_ = space_size_ > 0 ? AutoregressivePolicy(shapes, default_ ? choices_of(*default_) : Choices{}, settings_)
                            : AutoregressivePolicy();
  rng_.seed(options.seed);
  budget_ = options.budget;
  proposed_ = 0;
  measured_ = 0;
  exhausted_ = space_size_ <= 0;
  seen_.clear();
  pending_.clear();
  drawn_.clear();
  outside_.clear();
  common::ExplorationParameters exploring;
  exploring.ceiling = kExploreCeiling;
  exploration_ = common::Exploration(exploring, budget_);
  std::vector<uint32_t> sizes;
  for (const auto& d : domains_) sizes.push_back(static_cast<uint32_t>(d.size()));
  novelty_ = common::ValueNovelty(sizes, ordinal_);
  design_.clear();
  if (default_) {
    const Choices c = choices_of(*default_);
    design_.emplace_back(c.begin(), c.end());
  }
  explore_draw_.seed(options.seed ^ 0x5eed5eed5eed5eedull);
  fresh_.clear();
  reference_us_.reset();
  baseline_ = 0;
  spread_.reset();
  best_.reset();
  best_us_ = 0;
  misses_ = 0;
  recentre_ = false;
}

// Configs that may still be proposed: the budget less what counts against it
// (results but invalid ones, and proposals still out), and the cap on all proposals.
uint64_t RlSearcher::room() const {
  const uint64_t counted = measured_ + pending_.size();
  const uint64_t left = budget_ > counted ? budget_ - counted : 0;
  const uint64_t cap = budget_ > std::numeric_limits<uint64_t>::max() / kProposalsPerBudget
                           ? std::numeric_limits<uint64_t>::max()
                           : budget_ * kProposalsPerBudget;
  return std::min(left, cap > proposed_ ? cap - proposed_ : 0);
}

std::vector<sdk::Config> RlSearcher::propose(size_t max_count) {
  learn();
  std::vector<sdk::Config> out;
  while (out.size() < max_count && room() > 0 && !exhausted_) {
    auto c = next();
    if (!c) {
      exhausted_ = true;
      break;
    }
    seen_.insert(*c);
    pending_.insert(*c);
    ++proposed_;
    out.push_back(std::move(*c));
  }
  return out;
}

// A config it did not propose (a warm start, another searcher's) is
// knowledge as much as its own: it counts, it is never proposed, it teaches
// the policy, and when it beats everything the policy leans toward it.
void RlSearcher::observe(const sdk::Config& config, const sdk::Measurement& result) {
  const bool refused = result.status == sdk::ResultStatus::invalid;
  if (!in_space(config)) {
    // A result for a config outside the space still spends the budget, once.
    if (outside_.insert(config).second && !refused) ++measured_;
    return;
  }
  const bool ours = pending_.erase(config) != 0;
  if (!ours && !seen_.insert(config).second) return;  // already told
  const bool off_policy = !ours || drawn_.erase(config) != 0;
  if (!refused) ++measured_;
  const Choices choices = choices_of(config);
  novelty_.record(std::vector<uint32_t>(choices.begin(), choices.end()), refused);
  const bool ran = timed(result);
  // A tie moves the best too, so local steps walk across a plateau.
  if (ran && (!best_ || result.time_us <= best_us_)) {
    best_ = choices_of(config);
    best_us_ = result.time_us;
  }
  const bool new_best =
      !refused && exploration_.record(ran ? result.time_us : std::numeric_limits<double>::infinity());
  if (default_ && config == *default_) {
    // Not drawn from the policy, so no gradient: it only sets the reference.
    if (ran && !reference_us_) reference_us_ = result.time_us;
    return;
  }
  // A config not drawn from the policy takes no gradient: REINFORCE's
  // estimate holds for the policy's own draws. It still counts, is never
  // proposed, and when it beats everything the policy re-centres on it.
  if (off_policy) {
    recentre_ = recentre_ || (new_best && ran);
    return;
  }
  misses_ = ran ? 0 : misses_ + 1;
  fresh_.push_back({choices_of(config), ran, result.time_us});
}

bool RlSearcher::in_space(const sdk::Config& config) const {
  if (config.size() != domains_.size() || space_size_ <= 0) return false;
  for (size_t i = 0; i < config.size(); ++i)
    if (!std::binary_search(domains_[i].begin(), domains_[i].end(), config[i])) return false;
  return true;
}

// One policy-gradient step on everything observed since the last one.
void RlSearcher::learn() {
  if (recentre_ && best_) policy_.recentre(*best_, kLeanKeep);
  recentre_ = false;
  if (fresh_.empty()) return;
  if (!reference_us_) {
    // The default did not run: the first time seen stands in for it.
    for (const auto& o : fresh_)
      if (o.ok) {
        reference_us_ = o.time_us;
        break;
      }
  }
  // Configs that ran first: only they move the baseline and the spread, so a
  // batch of failures can neither sink the baseline to the failure's score
  // (where failures would teach nothing) nor shrink the spread to nothing
  // (where any config that runs would take a full-size step).
  std::vector<double> rewards(fresh_.size());
  double mean = 0, square = 0;
  size_t ran = 0;
  for (size_t k = 0; k < fresh_.size(); ++k) {
    if (!fresh_[k].ok) continue;
    const double r = rewards[k] = std::log(*reference_us_ / fresh_[k].time_us);
    mean += r;
    square += (r - baseline_) * (r - baseline_);
    ++ran;
  }
  const double fail = std::min(0.0, baseline_) - kFailMargin;
  for (size_t k = 0; k < fresh_.size(); ++k)
    if (!fresh_[k].ok) rewards[k] = fail;
  if (ran > 0) {
    mean /= static_cast<double>(ran);
    square /= static_cast<double>(ran);
    spread_ = spread_ ? (1 - kAverageRate) * *spread_ + kAverageRate * square : square;
  }
  // Advantages in units of the usual reward spread, so one learning rate
  // serves an op whose configs differ by 2% and one where they differ by 10x.
  // Before anything but the default ran, the margin stands in for it.
  const double scale = std::max(std::sqrt(spread_.value_or(kFailMargin * kFailMargin)), kMinScale);
  std::vector<AutoregressivePolicy::Episode> batch;
  for (size_t k = 0; k < fresh_.size(); ++k)
    batch.push_back({fresh_[k].choices, std::clamp((rewards[k] - baseline_) / scale, -kAdvantageClip, kAdvantageClip)});
  policy_.update(batch);
  if (ran > 0) baseline_ += kAverageRate * (mean - baseline_);
  if (misses_ >= kMissesBeforeRecentre && best_) {
    policy_.recentre(*best_, kRecentreKeep);
    misses_ = 0;
  }
  fresh_.clear();
}

// The default first, then policy draws; a draw already proposed is redrawn,
// and when the policy keeps drawing known configs, the unseen config nearest
// the best that ran is taken instead (nearest the last draw while none has
// run): a neighbour of a config that runs is likelier to run than one of a
// draw that may not.
std::optional<sdk::Config> RlSearcher::next() {
  if (default_ && !seen_.count(*default_)) return *default_;
  if (static_cast<double>(seen_.size()) >= space_size_) return std::nullopt;
  // A few random configs first, then a share that grows while the policy stalls.
  const bool designing = !exploration_.designed();
  if (exploration_.random_next(explore_draw_))
    if (auto config = random_unseen(designing)) {
      drawn_.insert(*config);
      return config;
    }
  if (best_ && explore_draw_.chance(kLocalShare))
    if (auto config = local_unseen(*best_)) {
      drawn_.insert(*config);
      return config;
    }
  Choices c;
  for (int t = 0; t < kResamples; ++t) {
    c = policy_.sample(rng_);
    auto config = config_of(c);
    if (!seen_.count(config)) return config;
  }
  return nearest_unseen(best_ ? *best_ : c);
}

// Uniform, as random search draws; near a uniform draw when those keep repeating.
std::optional<sdk::Config> RlSearcher::random_unseen(bool designing) {
  const auto seen = [&](const std::vector<uint32_t>& g) {
    return seen_.count(config_of(Choices(g.begin(), g.end()))) != 0;
  };
  const auto novel =
      designing ? novelty_.spread(explore_draw_, seen, design_) : novelty_.unseen(explore_draw_, seen);
  if (novel) {
    if (designing) design_.push_back(*novel);
    return config_of(Choices(novel->begin(), novel->end()));
  }
  Choices c(domains_.size());
  for (int t = 0; t < kResamples; ++t) {
    for (size_t i = 0; i < c.size(); ++i) c[i] = static_cast<size_t>(explore_draw_.below(domains_[i].size()));
    auto config = config_of(c);
    if (!seen_.count(config)) return config;
  }
  return nearest_unseen(c);
}

// A one-knob step from `from` not yet seen, in random order; once every
// one has been, one or two knobs moved at random.
std::optional<sdk::Config> RlSearcher::local_unseen(const Choices& from) {
  std::vector<Choices> steps;
  for (size_t i = 0; i < from.size(); ++i)
    for (size_t q : moves(i, from[i])) {
      Choices c = from;
      c[i] = q;
      steps.push_back(std::move(c));
    }
  while (!steps.empty()) {
    const size_t k = static_cast<size_t>(explore_draw_.below(steps.size()));
    auto config = config_of(steps[k]);
    if (!seen_.count(config)) return config;
    steps[k] = std::move(steps.back());
    steps.pop_back();
  }
  for (int t = 0; t < kLocalTries; ++t) {
    Choices c = from;
    for (int m = 0; m < 2; ++m) {
      const size_t i = static_cast<size_t>(explore_draw_.below(c.size()));
      const auto near = moves(i, c[i]);
      if (!near.empty()) c[i] = near[explore_draw_.below(near.size())];
    }
    auto config = config_of(c);
    if (!seen_.count(config)) return config;
  }
  return std::nullopt;
}

// Breadth-first over one-knob moves (one position on an ordinal knob, any
// other value on a categorical one), expanding only proposed configs: the
// first unseen config met is a nearest one, and none means the space is spent.
std::optional<sdk::Config> RlSearcher::nearest_unseen(const Choices& from) const {
  std::set<Choices> visited{from};
  std::deque<Choices> queue{from};
  while (!queue.empty()) {
    const Choices at = std::move(queue.front());
    queue.pop_front();
    for (size_t i = 0; i < at.size(); ++i) {
      for (size_t q : moves(i, at[i])) {
        Choices near = at;
        near[i] = q;
        if (!visited.insert(near).second) continue;
        auto config = config_of(near);
        if (!seen_.count(config)) return config;
        queue.push_back(std::move(near));
      }
    }
  }
  return std::nullopt;
}

std::vector<size_t> RlSearcher::moves(size_t knob, size_t from) const {
  return common::one_step_from(from, domains_[knob].size(), static_cast<bool>(ordinal_[knob]));
}

Choices RlSearcher::choices_of(const sdk::Config& config) const {
  Choices c(config.size());
  for (size_t i = 0; i < config.size(); ++i) {
    const auto& d = domains_[i];
    c[i] = static_cast<size_t>(std::lower_bound(d.begin(), d.end(), config[i]) - d.begin());
  }
  return c;
}

sdk::Config RlSearcher::config_of(const Choices& choices) const {
  sdk::Config c(choices.size());
  for (size_t i = 0; i < choices.size(); ++i) c[i] = domains_[i][choices[i]];
  return c;
}

}  // namespace aoe::search
