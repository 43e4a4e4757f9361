// A genetic-algorithm searcher in the manner of AOE's GA tuner for cube ops:
// a population seeded from the device's default config, tournament
// selection, uniform crossover, neighbour-biased mutation and elitism, with
// children the device refuses as invalid repaired toward a valid parent and
// the constraints learnt per knob value. Never measures a config twice.
#pragma once

#include <cstdint>
#include <deque>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "../common/exploration.h"
#include "../common/space_coding.h"
#include "aoe/sdk/component.h"
#include "aoe/sdk/searcher.h"
#include "constraint_memory.h"
#include "draw.h"
#include "genome.h"
#include "variation.h"

namespace aoe::search {

// Zero means "derive it": see README.md for each value's default.
struct GaParameters {
  size_t population = 0;  // clamp(budget / 4, 8, 32)
  size_t elites = 0;      // clamp(population / 8, 1, 4)
  size_t tournament = 3;
  double crossover = 0.9;       // else a child is a mutated copy of its first parent
  double mutation = 0;          // per knob; 1 / the number of knobs that have a choice
  double neighbour = 0.8;       // ordered knobs: share of mutations to an adjacent value
  double default_share = 0.125;  // of the first population: mutants of the default config
  size_t collision_retries = 16;
};

class GaSearcher final : public sdk::Searcher {
 public:
  GaSearcher() = default;
  explicit GaSearcher(GaParameters parameters) : requested_(parameters) {}
  // --searcher_options: the fields of GaParameters by name.
  explicit GaSearcher(const sdk::CreateArgs& args);

  void start(const sdk::TuningSpace& space, const sdk::SearchOptions& options) override;
  std::vector<sdk::Config> propose(size_t max_count) override;
  void observe(const sdk::Config& config, const sdk::Measurement& result) override;

 private:
  using Genome = ga::Genome;
  enum class State { pending, measured, invalid };
  struct Record {
    State state = State::pending;
    double fitness = std::numeric_limits<double>::infinity();
    uint64_t generation = 0;
    std::vector<Genome> guides;  // a bred child's parents, or the target a repaired child moves toward
    bool immigrant = false;      // drawn uniformly to explore: never repaired
  };
  struct Member {
    Genome genome;
    double fitness;
  };
  struct Candidate {
    Genome genome;
    std::vector<Genome> guides;
    bool immigrant = false;
  };
  struct Repair {
    Genome from;
    Genome target;
  };

  void settle(const Record& r, bool refused);
  uint64_t room() const;
  bool generation_complete() const;
  void close_generation();
  std::optional<Candidate> next(bool must);
  std::optional<Candidate> founder();
  std::optional<Candidate> breed();
  std::optional<Candidate> unseen(Genome child, std::vector<Genome> guides);
  std::optional<Candidate> any_unseen();
  std::optional<Genome> random_unseen(bool uniform = false);
  std::optional<Candidate> immigrant();
  std::optional<Candidate> repaired(const Repair& job);
  std::optional<Genome> repair_target(const Record& r) const;
  const Member& tournament();
  void issue(const Candidate& c);
  bool seen(const Genome& g) const { return records_.count(g) != 0; }
  bool exhausted() const { return coding_.countable() && records_.size() >= coding_.size(); }

  GaParameters requested_;
  GaParameters p_;  // with every derived value filled in

  // The space.
  common::SpaceCoding coding_;
  std::vector<ga::KnobShape> shapes_;
  std::optional<Genome> default_;

  // The budget: measurements observed (but for invalid ones) and those still out.
  uint64_t budget_ = 0;
  uint64_t max_proposals_ = 0;
  uint64_t proposed_ = 0;
  uint64_t measured_ = 0;
  uint64_t pending_ = 0;

  ga::Draw draw_;
  ga::ConstraintMemory memory_;
  ga::Variation variation_;
  common::Exploration exploration_;
  common::ValueNovelty novelty_;
  std::vector<Genome> design_;  // the default and the random founders
  std::map<Genome, Record> records_;  // everything proposed or observed: never proposed again
  std::set<sdk::Config> outside_;     // configs outside the space that were reported
  std::optional<Member> best_;

  // The generation being bred.
  uint64_t generation_ = 0;
  size_t wanted_ = 0;               // children it should measure
  size_t live_ = 0;                 // issued in it and not refused
  size_t waiting_ = 0;              // issued in it and not yet observed
  size_t founders_ = 0;             // issued into the first population
  std::vector<Member> population_;  // the parents, fittest first
  std::vector<Member> fresh_;       // measured since the population was last formed
  std::deque<Repair> repairs_;
};

}  // namespace aoe::search
