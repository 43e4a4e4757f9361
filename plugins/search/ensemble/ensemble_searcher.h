// A searcher that shares its budget among several others as OpenTuner's
// AUCBanditMetaTechnique does: an AUC bandit gives each slot of a batch to
// the member that has lately found new bests, with a UCB term so that none
// is starved. Every member sees every result, whoever proposed it, so each
// learns from all measurements; a config one member proposed is never
// proposed again by another.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../common/search_ledger.h"
#include "../common/space_coding.h"
#include "../ga/draw.h"
#include "aoe/sdk/component.h"
#include "aoe/sdk/searcher.h"
#include "auc_bandit.h"

namespace aoe::search {

struct EnsembleParameters {
  double exploration = 0.05;  // C, the weight of the bandit's exploration term
  size_t window = 500;        // uses of members the bandit remembers
  size_t retries = 4;         // asks of a member whose proposals were all taken already
};

class EnsembleSearcher final : public sdk::Searcher {
 public:
  using Factory = std::function<std::unique_ptr<sdk::Searcher>()>;
  struct Member {
    std::string name;
    Factory make;
  };
  // surrogate, sa, ga and random.
  static std::vector<Member> default_members();

  EnsembleSearcher() : EnsembleSearcher(default_members()) {}
  explicit EnsembleSearcher(std::vector<Member> members, EnsembleParameters parameters = {});
  // --searcher_options: the fields of EnsembleParameters by name; the members keep their defaults.
  explicit EnsembleSearcher(const sdk::CreateArgs& args);

  void start(const sdk::TuningSpace& space, const sdk::SearchOptions& options) override;
  std::vector<sdk::Config> propose(size_t max_count) override;
  void observe(const sdk::Config& config, const sdk::Measurement& result) override;

  // The measurements each member's proposals have taken in this search (results
  // other than invalid), by name, in member order.
  std::vector<std::pair<std::string, uint64_t>> shares() const;

 private:
  using Genome = common::Genome;
  static constexpr size_t kNoMember = std::numeric_limits<size_t>::max();
  struct Arm {
    std::unique_ptr<sdk::Searcher> searcher;
    bool done = false;      // it proposed nothing when asked: its search is over
    uint64_t measured = 0;  // results of its proposals other than invalid
  };

  std::optional<size_t> choose(const ensemble::AucBandit& bandit, const std::vector<bool>& available);
  std::vector<std::pair<size_t, size_t>> plan(size_t slots, const std::vector<bool>& available);
  size_t ask(size_t arm, size_t count, std::vector<sdk::Config>& out);
  void issue(const Genome& g, size_t owner, std::vector<sdk::Config>& out);

  std::vector<Member> members_;
  EnsembleParameters p_;

  common::SpaceCoding space_;
  common::Ledger ledger_;
  ga::Draw draw_;
  std::optional<Genome> default_;
  std::vector<Arm> arms_;
  ensemble::AucBandit bandit_;
  std::map<Genome, size_t> owners_;  // proposals still out, and the member that made each
  double best_us_ = std::numeric_limits<double>::infinity();
};

}  // namespace aoe::search
