// A model-based searcher in the manner of TVM's cost-model tuner and of
// Bayesian optimisation: extra-trees models of log time and of the chance a
// config runs, fitted on every result so far, choose each batch by expected
// improvement over a pool of random configs and neighbours of the fastest
// ones. Starts from the device's default config and a few diverse random
// ones. Never measures a config twice.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <vector>

#include "../common/exploration.h"
#include "../common/neighbourhood.h"
#include "../common/search_ledger.h"
#include "../common/space_coding.h"
#include "../ga/draw.h"
#include "aoe/sdk/component.h"
#include "aoe/sdk/searcher.h"
#include "extra_trees.h"
#include "knob_features.h"

namespace aoe::search {

// Zero means "derive it": see README.md for each value's default.
struct SurrogateParameters {
  size_t initial = 0;               // measured configs before the model leads: clamp(budget / 40, 4, 12)
  size_t trees = 32;                // per model
  size_t split_features = 0;        // features a node tries: max(2, ceil(sqrt(features)))
  size_t min_split = 3;             // samples a node needs to split
  double refit_growth = 0.1;        // refit once the results have grown by this share since the last fit
  size_t max_samples = 1024;        // observations a model is fitted on, at most
  size_t random_candidates = 1024;  // configs drawn uniformly into the pool at each fit
  size_t parents = 8;               // the fastest configs whose neighbours join the pool
  size_t mutants = 24;              // further configs per parent, two or three knobs moved
  double explore = 0.05;            // share of picks drawn at random while the search improves (to 0.7 as it stalls)
  double diversity = 0.15;          // reach of a pick's penalty on candidates near it, in knob ranges
};

class SurrogateSearcher final : public sdk::Searcher {
 public:
  SurrogateSearcher() = default;
  explicit SurrogateSearcher(SurrogateParameters parameters) : requested_(parameters) {}
  // --searcher_options: the fields of SurrogateParameters by name.
  explicit SurrogateSearcher(const sdk::CreateArgs& args);

  void start(const sdk::TuningSpace& space, const sdk::SearchOptions& options) override;
  std::vector<sdk::Config> propose(size_t max_count) override;
  void observe(const sdk::Config& config, const sdk::Measurement& result) override;

 private:
  using Genome = common::Genome;
  struct Elite {
    double time_us;
    Genome genome;
  };
  // A config the models have scored.
  struct ValueCount {
    uint32_t seen = 0;  // results of configs holding the value
    uint32_t ran = 0;   // of which ran
  };
  struct Candidate {
    Genome genome;
    double mean = 0;    // predicted log time
    double spread = 0;  // the trees' disagreement on it
    double runs = 0;    // predicted chance that it runs
  };

  bool designing() const;
  std::optional<Genome> design_point();
  void model_batch(size_t count, std::vector<sdk::Config>& out);
  bool refit_due() const;
  void fit();
  void refill_pool();
  void add_neighbours_of_elites();
  void add_candidate(Genome g);
  void score_candidates();
  double distance(const Genome& a, const Genome& b, double limit = std::numeric_limits<double>::infinity()) const;
  void issue(const Genome& g, std::vector<sdk::Config>& out);
  void remember(const Genome& g, double time_us);
  double never_ran(const Genome& g) const;

  SurrogateParameters requested_;
  SurrogateParameters p_;  // with every derived value filled in

  common::SpaceCoding space_;
  common::Ledger ledger_;
  common::Neighbourhood neighbours_;
  surrogate::KnobFeatures features_;
  ga::Draw draw_;
  std::optional<Genome> default_;
  common::Exploration exploration_;
  common::ValueNovelty novelty_;

  surrogate::ExtraTrees time_model_;             // log time of configs that ran
  surrogate::ExtraTrees validity_model_;         // 1 for a config that ran, 0 for one refused or failed
  uint64_t results_ = 0;                         // fresh results observed
  uint64_t fitted_on_ = 0;                       // results_ when the models were last fitted
  uint64_t timed_ = 0;                           // results with a time
  std::vector<Genome> unfitted_;                 // observed since the models were last fitted
  std::set<Genome> outstanding_;                 // proposed, not yet observed
  std::vector<Genome> design_;                   // the default and the random configs proposed before the model leads
  std::vector<Elite> elites_;                    // the fastest configs, fastest first
  std::vector<std::vector<ValueCount>> values_;  // per knob, per value

  // Scored while the models stand: refilled at each fit, grown as new elites appear.
  std::vector<Candidate> pool_;
  size_t scored_ = 0;       // the candidates the models have scored: all but the latest
  std::set<Genome> pooled_;
  std::set<Genome> expanded_;  // elites whose neighbours are in the pool
};

}  // namespace aoe::search
