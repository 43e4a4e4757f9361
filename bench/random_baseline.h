// R(t) of Willemsen et al. (FGCS 2024): the expected best time random search
// without replacement has found by time t, computed exactly from the time of
// every config of a space. Optionally conditioned on one config being drawn
// first, as the tuner measures the default config first: a searcher that
// starts from the default is then held to a baseline that starts there too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace aoe::bench {

class RandomBaseline {
 public:
  // `times`: every config a tuner runs, its time, or +inf when it fails to
  // build or run; `costs`: what evaluating each costs, on the time axis.
  // `first`: the index of the config drawn first (it must have a finite
  // time), or none for plain random search. Throws std::invalid_argument
  // when no config has a finite time, or the sizes or `first` are wrong.
  RandomBaseline(std::vector<double> times, std::vector<double> costs, std::optional<size_t> first = std::nullopt);

  // E[best time after m draws]. Before any draw has given a time (m == 0, or
  // only failures drawn) the best counts as unmeasured().
  double expected_best(uint64_t m) const;
  // expected_best of the draws completed by `time`: the first draw, when
  // conditioned, at its own cost, every other at the mean cost of the rest.
  double at_time(double time) const;
  // The fewest draws whose expected best is at most `target` (all of them
  // when none is).
  uint64_t draws_to(double target) const;

  // The mean time of the configs that run: what a search is credited with
  // before it has a time.
  double unmeasured() const { return unmeasured_; }
  double optimum() const { return optimum_; }
  double median() const { return median_; }
  double mean_cost() const { return mean_cost_; }
  size_t configs() const { return size_; }

 private:
  size_t size_ = 0;
  std::optional<double> first_time_;
  double first_cost_ = 0;
  // The configs drawn at random, ascending; when conditioned, those no
  // faster than the first draw count as failures (+inf): they cannot improve on it.
  std::vector<double> drawn_;
  double optimum_ = 0, median_ = 0, unmeasured_ = 0;
  double mean_cost_ = 1;  // of every config
  double rest_cost_ = 1;  // of the configs drawn at random: what at_time charges per draw
};

}  // namespace aoe::bench
