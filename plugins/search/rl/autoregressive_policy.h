// A stochastic policy that builds a config one knob at a time, each choice a
// softmax over the knob's values conditioned on the previous knob's choice.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace aoe::search {

// One value position (index into a knob's ascending values) per knob.
using Choices = std::vector<size_t>;

class AutoregressivePolicy {
 public:
  struct KnobShape {
    size_t size = 0;       // values in the knob's domain
    bool ordinal = false;  // integer / power of two: neighbouring positions behave alike
  };
  struct Settings {
    // Step sizes per batch, on advantages in units of their spread. An
    // ordinal knob's step is shared out among neighbouring values; a
    // categorical knob's is not, so it takes a smaller one or a binary
    // choice flips on one lucky batch.
    double ordinal_rate = 6.0;
    double categorical_rate = 1.5;
    double entropy_weight = 0.2;
    double prior_weight = 0.5;      // initial logit bonus on the default config's values
    double kernel_fraction = 0.15;  // an ordinal update's spread, as a fraction of the knob's size
  };
  // One finished episode: its decisions and how much better than expected it did.
  struct Episode {
    Choices choices;
    double advantage = 0;
  };

  AutoregressivePolicy() = default;
  // `prior` (empty for none) is where the initial mass leans.
  AutoregressivePolicy(std::vector<KnobShape> knobs, const Choices& prior, Settings settings);

  Choices sample(std::mt19937_64& rng) const;
  // pi(value | previous knob's choice) for knob `knob`; `previous` is ignored for knob 0.
  std::vector<double> distribution(size_t knob, size_t previous) const;
  double probability(const Choices& choices) const;
  // pi(value) of knob `knob` summed over the choices before it: the marginal a sample shows.
  std::vector<double> marginal(size_t knob) const;
  // One REINFORCE step over a batch of episodes, with the entropy bonus.
  void update(const std::vector<Episode>& batch);
  // Keeps `keep` of every logit and leans the rest of the mass on `at`, as
  // the initial prior leans on the default.
  void recentre(const Choices& at, double keep);

 private:
  std::vector<double> logits(size_t knob, size_t previous) const;
  bool has_pair(size_t knob) const { return knob > 0 && !pair_[knob].empty(); }
  void add_smoothed(size_t knob, const std::vector<double>& gradient, double step, double* row);
  void lean_towards(const Choices& at);

  std::vector<KnobShape> knobs_;
  Settings settings_;
  std::vector<std::vector<double>> unary_;  // [knob][value]: logits shared by every context
  std::vector<std::vector<double>> pair_;   // [knob][previous * size + value]: the conditioning on the previous knob
  std::vector<std::vector<double>> kernel_; // [knob][distance]: the spread of an ordinal update
};

}  // namespace aoe::search
