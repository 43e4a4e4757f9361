// A simulated-annealing searcher: chains of one- and two-knob moves from the
// device's default config, Metropolis acceptance on log-time differences at a
// temperature set from the rises seen and cooled geometrically over the
// budget, and restarts from the best configs when a chain stops improving.
// Never measures a config twice.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <vector>

#include "../common/exploration.h"
#include "../common/neighbourhood.h"
#include "../common/search_ledger.h"
#include "../common/space_coding.h"
#include "../ga/draw.h"
#include "annealing_schedule.h"
#include "aoe/sdk/component.h"
#include "aoe/sdk/searcher.h"

namespace aoe::search {

// Zero means "derive it": see README.md for each value's default.
struct SaParameters {
  size_t chains = 0;                // clamp(budget / 64, 1, 8)
  double initial_acceptance = 0.5;  // the chance of taking a typical rise at the start
  double final_ratio = 0.02;        // of the initial temperature, when the budget is spent
  double pair_moves = 0.3;          // share of moves that change two knobs at once
  double jumps = 0.2;               // share of ordered-knob moves to any other value
  size_t patience = 0;              // max(4, budget / (16 * chains)) results without a new chain best
  size_t elites = 4;                // the best configs a stuck chain restarts from
};

class SaSearcher final : public sdk::Searcher {
 public:
  SaSearcher() = default;
  explicit SaSearcher(SaParameters parameters) : requested_(parameters) {}
  // --searcher_options: the fields of SaParameters by name.
  explicit SaSearcher(const sdk::CreateArgs& args);

  void start(const sdk::TuningSpace& space, const sdk::SearchOptions& options) override;
  std::vector<sdk::Config> propose(size_t max_count) override;
  void observe(const sdk::Config& config, const sdk::Measurement& result) override;

 private:
  using Genome = common::Genome;
  static constexpr size_t kNoChain = std::numeric_limits<size_t>::max();
  static constexpr double kUnknown = std::numeric_limits<double>::infinity();

  struct Chain {
    bool placed = false;
    Genome current;
    bool known = false;          // the current config's result is in
    double log_time = kUnknown;  // of the current config; infinite when it did not run
    double best = kUnknown;      // the chain's best log time since it was (re)placed
    uint64_t stale = 0;          // results of its moves since it last improved on `best`
  };
  struct Proposal {
    Genome genome;
    size_t chain = kNoChain;
  };
  struct Elite {
    double time_us;
    Genome genome;
  };

  std::optional<Proposal> next();
  std::optional<Genome> restart(Chain& chain);
  void place(Chain& chain, const Genome& g);
  void step(Chain& chain, const Genome& g, const sdk::Measurement& result);
  void remember(const Genome& g, double time_us);
  void remember_landing(const Genome& g, double time_us);
  void move_stalest_chain_to(const Genome& g);
  std::optional<Genome> explore(bool designing);
  double progress() const;

  SaParameters requested_;
  SaParameters p_;  // with every derived value filled in

  common::SpaceCoding space_;
  common::Ledger ledger_;
  common::Neighbourhood neighbours_;
  sa::AnnealingSchedule schedule_;
  common::Exploration exploration_;
  common::ValueNovelty novelty_;
  std::vector<Genome> design_;  // the random configs proposed before the chains, spread apart
  ga::Draw draw_;
  std::optional<Genome> default_;

  std::vector<Chain> chains_;
  size_t cursor_ = 0;                 // the chain that moves next
  std::map<Genome, size_t> origins_;  // a proposal still out, and the chain it belongs to
  std::vector<Elite> elites_;         // the fastest measured configs, fastest first
  // The fastest random configs (or results from elsewhere) that ran and no
  // chain has started from, fastest first: some restarts start there.
  std::vector<Elite> landings_;
  uint64_t restarts_ = 0;  // chains moved for being stuck
};

}  // namespace aoe::search
