// Reinforcement-learning search: a policy-gradient (REINFORCE) agent whose
// episode is one config, chosen knob by knob, rewarded by its speed-up over
// the device's default config.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <set>
#include <vector>

#include "../common/exploration.h"
#include "../ga/draw.h"
#include "aoe/sdk/component.h"
#include "aoe/sdk/searcher.h"
#include "autoregressive_policy.h"

namespace aoe::search {

class RlSearcher final : public sdk::Searcher {
 public:
  RlSearcher() = default;
  // --searcher_options: the policy's Settings by name.
  explicit RlSearcher(const sdk::CreateArgs& args);

  void start(const sdk::TuningSpace& space, const sdk::SearchOptions& options) override;
  std::vector<sdk::Config> propose(size_t max_count) override;
  void observe(const sdk::Config& config, const sdk::Measurement& result) override;

  const AutoregressivePolicy& policy() const { return policy_; }
  Choices choices_of(const sdk::Config& config) const;

 private:
  struct Outcome {
    Choices choices;
    bool ok = false;
    double time_us = 0;
  };

  uint64_t room() const;
  bool in_space(const sdk::Config& config) const;
  void learn();
  std::optional<sdk::Config> next();
  std::optional<sdk::Config> nearest_unseen(const Choices& from) const;
  std::optional<sdk::Config> random_unseen(bool designing);
  std::optional<sdk::Config> local_unseen(const Choices& from);
  std::vector<size_t> moves(size_t knob, size_t from) const;  // positions one step away
  sdk::Config config_of(const Choices& choices) const;

  std::vector<std::vector<int64_t>> domains_;
  std::vector<bool> ordinal_;
  std::optional<sdk::Config> default_;  // proposed first; its time is the reward's reference
  AutoregressivePolicy::Settings settings_;
  AutoregressivePolicy policy_;
  std::mt19937_64 rng_;
  uint64_t budget_ = 0;
  uint64_t proposed_ = 0;
  uint64_t measured_ = 0;  // observed results but invalid ones (refused before running, so free), ours or not
  double space_size_ = 0;
  bool exhausted_ = false;
  std::set<sdk::Config> seen_;     // every config proposed or observed
  std::set<sdk::Config> pending_;  // proposed, not yet observed
  std::set<sdk::Config> drawn_;    // of those, the ones drawn at random rather than from the policy
  std::set<sdk::Config> outside_;  // configs outside the space that were reported
  common::Exploration exploration_;
  common::ValueNovelty novelty_;
  std::vector<std::vector<uint32_t>> design_;  // the default and the random configs proposed first
  ga::Draw explore_draw_;
  std::vector<Outcome> fresh_;     // observed since the last update, in order
  std::optional<double> reference_us_;
  double baseline_ = 0;  // moving average of the reward of configs that ran; the default's reward is 0
  std::optional<double> spread_;  // moving mean square of reward - baseline, over configs that ran
  std::optional<Choices> best_;   // the fastest config that ran
  double best_us_ = 0;
  uint64_t misses_ = 0;  // policy draws in a row, as observed, that did not run
  bool recentre_ = false;  // a config not drawn from the policy beat everything: lean toward it
};

}  // namespace aoe::search
