// The random-search baseline of searcher_scores against random search itself,
// simulated: on a tiny space, the exact expected best after m draws must
// match the mean of many shuffled draws, with and without the default drawn
// first, and the two must differ where the default is a good config.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <random>
#include <vector>

#include "random_baseline.h"

namespace aoe::bench {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Ten configs, two of which fail; the default (index 4) is the second fastest.
const std::vector<double> kTimes = {4, 1, kInf, 9, 2.5, 7, kInf, 3, 12, 5};
constexpr size_t kDefault = 4;

struct Estimate {
  std::vector<double> mean, stderr_;  // per draw count 0..n
};

// Random search without replacement, simulated: the best time after each
// draw, the mean of the valid times before any draw has run.
Estimate simulate(std::optional<size_t> first, int trials) {
  const size_t n = kTimes.size();
  double unmeasured = 0;
  size_t valid = 0;
  for (double t : kTimes)
    if (t < kInf) unmeasured += t, ++valid;
  unmeasured /= static_cast<double>(valid);

  std::mt19937_64 rng(7);
  std::vector<double> sum(n + 1, 0), sum_sq(n + 1, 0);
  std::vector<size_t> order(n);
  for (int trial = 0; trial < trials; ++trial) {
    std::iota(order.begin(), order.end(), size_t{0});
    std::shuffle(order.begin(), order.end(), rng);
    if (first) std::swap(order[0], *std::find(order.begin(), order.end(), *first));
    double best = kInf;
    for (size_t m = 0; m <= n; ++m) {
      if (m > 0) best = std::min(best, kTimes[order[m - 1]]);
      const double seen = best < kInf ? best : unmeasured;
      sum[m] += seen;
      sum_sq[m] += seen * seen;
    }
  }
  Estimate out;
  for (size_t m = 0; m <= n; ++m) {
    const double mean = sum[m] / trials;
    const double var = std::max(0.0, sum_sq[m] / trials - mean * mean);
    out.mean.push_back(mean);
    out.stderr_.push_back(std::sqrt(var / trials));
  }
  return out;
}

// Within five standard errors of the simulation, and a hair for rounding.
void expect_matches(const RandomBaseline& baseline, const Estimate& simulated) {
  for (size_t m = 0; m < simulated.mean.size(); ++m)
    EXPECT_NEAR(baseline.expected_best(m), simulated.mean[m], 5 * simulated.stderr_[m] + 1e-9) << "after " << m << " draws";
}

const std::vector<double> kUnitCosts(kTimes.size(), 1.0);

TEST(RandomBaseline, MatchesSimulatedRandomSearch) {
  expect_matches(RandomBaseline(kTimes, kUnitCosts), simulate(std::nullopt, 200000));
}

TEST(RandomBaseline, WithTheDefaultFirstMatchesSimulatedRandomSearchThatStartsThere) {
  const RandomBaseline baseline(kTimes, kUnitCosts, kDefault);
  expect_matches(baseline, simulate(kDefault, 200000));
  EXPECT_DOUBLE_EQ(baseline.expected_best(1), kTimes[kDefault]);
}

TEST(RandomBaseline, TheDefaultFirstChangesTheCurveTheSimulationCanTellApart) {
  // Were the conditioning dropped, the test above would compare the plain
  // curve with this simulation: it must be far outside the tolerance there.
  const RandomBaseline plain(kTimes, kUnitCosts);
  const Estimate started = simulate(kDefault, 200000);
  for (uint64_t m : {1, 2, 3})
    EXPECT_GT(std::abs(plain.expected_best(m) - started.mean[m]), 20 * started.stderr_[m] + 0.1) << m;
}

TEST(RandomBaseline, EveryDrawFindsTheOptimum) {
  for (const auto& baseline : {RandomBaseline(kTimes, kUnitCosts), RandomBaseline(kTimes, kUnitCosts, kDefault)}) {
    EXPECT_DOUBLE_EQ(baseline.expected_best(kTimes.size()), 1);
    EXPECT_DOUBLE_EQ(baseline.optimum(), 1);
    EXPECT_DOUBLE_EQ(baseline.median(), 4.5);
    EXPECT_DOUBLE_EQ(baseline.unmeasured(), 43.5 / 8);
  }
}

TEST(RandomBaseline, TheDefaultIsChargedItsOwnCostThenTheRestTheirMean) {
  std::vector<double> costs(kTimes.size(), 2.0);
  costs[kDefault] = 5;  // the rest: 9 configs of 2
  const RandomBaseline started(kTimes, costs, kDefault);
  EXPECT_DOUBLE_EQ(started.at_time(4.9), started.unmeasured());
  EXPECT_DOUBLE_EQ(started.at_time(5), started.expected_best(1));
  EXPECT_DOUBLE_EQ(started.at_time(6.9), started.expected_best(1));
  EXPECT_DOUBLE_EQ(started.at_time(7), started.expected_best(2));
  EXPECT_DOUBLE_EQ(started.at_time(11), started.expected_best(4));

  const RandomBaseline plain(kTimes, costs);  // mean cost 2.3
  EXPECT_DOUBLE_EQ(plain.at_time(2.2), plain.unmeasured());
  EXPECT_DOUBLE_EQ(plain.at_time(2.3), plain.expected_best(1));
  EXPECT_DOUBLE_EQ(plain.at_time(6.9), plain.expected_best(3));
}

TEST(RandomBaseline, DrawsToATargetIsTheFirstCountThatReachesIt) {
  const RandomBaseline plain(kTimes, kUnitCosts);
  const double target = 2;
  const uint64_t m = plain.draws_to(target);
  EXPECT_LE(plain.expected_best(m), target);
  EXPECT_GT(plain.expected_best(m - 1), target);
}

TEST(RandomBaseline, RefusesWhatItCannotScore) {
  EXPECT_THROW(RandomBaseline({kInf, kInf}, {1, 1}), std::invalid_argument);
  EXPECT_THROW(RandomBaseline(kTimes, {1, 1}), std::invalid_argument);
  EXPECT_THROW(RandomBaseline(kTimes, kUnitCosts, size_t{2}), std::invalid_argument);  // a failed config
  EXPECT_THROW(RandomBaseline(kTimes, kUnitCosts, kTimes.size()), std::invalid_argument);
}

}  // namespace
}  // namespace aoe::bench
