// The simulated-annealing searcher: the rules every searcher follows, its
// moves and temperature, and better than uniform random search on
// synthetic tiling costs.
#include "sa_searcher.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "../common/neighbourhood.h"
#include "annealing_schedule.h"
#include "searcher_rules.h"
#include "synthetic_tuning.h"

namespace aoe::search::testing {

AOE_SEARCHER_RULES(Sa, SaSearcher, "sa");

namespace {

std::unique_ptr<sdk::Searcher> make_sa() { return std::make_unique<SaSearcher>(); }

TEST(SaSearcher, BeatsRandomSearchOnAConstrainedEdge) {
  for (uint64_t budget : kContestBudgets) {
    const Standing f = contest("sa", "edge", constrained(edge_cost), budget, make_sa);
    EXPECT_LT(f.mean, f.random_mean);
  }
}

TEST(SaSearcher, BeatsRandomSearchOnARuggedCost) {
  for (uint64_t budget : kContestBudgets) {
    const Standing f = contest("sa", "rugged", constrained(rugged_cost), budget, make_sa);
    EXPECT_LT(f.mean, f.random_mean);
  }
}

TEST(AnnealingSchedule, StartsFromTheMedianRiseAndCoolsGeometrically) {
  sa::AnnealingSchedule schedule(0.5, 0.02);
  EXPECT_NEAR(schedule.temperature(0), 0.1 / std::log(2.0), 1e-12);  // nothing seen yet: a 10% rise
  for (double rise : {0.01, 0.02, 0.03, 5.0, 0.04}) schedule.record_rise(rise);
  const double start = schedule.temperature(0);
  EXPECT_NEAR(start, 0.03 / std::log(2.0), 1e-12);  // the median rise is taken half the time
  EXPECT_NEAR(schedule.temperature(0.5) / start, std::sqrt(0.02), 1e-12);
  EXPECT_NEAR(schedule.temperature(1) / start, 0.02, 1e-12);
  EXPECT_NEAR(schedule.temperature(3), schedule.temperature(1), 1e-12);
}

TEST(Neighbourhood, MovesOneKnobOrTwoByAStep) {
  const auto space = space_of(
      {Knob::integer("a", KnobTag::schedule, 0, 4), Knob::power_of_two("b", KnobTag::schedule, 1, 8),
       Knob::categorical("c", KnobTag::impl, {"x", "y", "z"}), Knob::integer("fixed", KnobTag::schedule, 3, 3)});
  const common::SpaceCoding coding(space);
  const common::Neighbourhood neighbours(coding, 0.3, 0.1);
  const common::Genome g{0, 2, 1, 0};
  const auto differing = [&](const common::Genome& n) {
    int knobs = 0;
    for (size_t k = 0; k < g.size(); ++k) knobs += n[k] != g[k];
    return knobs;
  };
  // One knob: a up (1), b down or up (2), c to either other label (2); pairs: 1x2 + 1x2 + 2x2.
  const auto steps = neighbours.steps(g);
  EXPECT_EQ(steps.size(), 13u);
  EXPECT_EQ(std::set<common::Genome>(steps.begin(), steps.end()).size(), steps.size());
  for (const auto& n : steps) {
    EXPECT_GE(differing(n), 1);
    EXPECT_LE(differing(n), 2);
    EXPECT_LE(std::abs(static_cast<int>(n[0]) - static_cast<int>(g[0])), 1);
    EXPECT_LE(std::abs(static_cast<int>(n[1]) - static_cast<int>(g[1])), 1);
  }
  ga::Draw draw;
  draw.seed(1);
  int pairs = 0, long_moves = 0;
  for (int i = 0; i < 2000; ++i) {
    const auto n = neighbours.random(g, draw);
    ASSERT_GE(differing(n), 1);
    ASSERT_LE(differing(n), 2);
    EXPECT_EQ(n[3], 0u);  // a knob without a choice never moves
    pairs += differing(n) == 2;
    long_moves += std::abs(static_cast<int>(n[1]) - static_cast<int>(g[1])) > 1;
  }
  EXPECT_NEAR(pairs / 2000.0, 0.3, 0.04);
  EXPECT_GT(long_moves, 0);    // jumps
  EXPECT_LT(long_moves, 100);  // but mostly steps
}

TEST(SaSearcher, DescendsABowlFromTheDefaultConfig) {
  const auto space =
      space_of({Knob::integer("a", KnobTag::schedule, 1, 32), Knob::integer("b", KnobTag::schedule, 1, 32)}, {1, 1});
  const auto bowl = [](const Config& c) {
    return Measurement::timed(1 + static_cast<double>((c[0] - 20) * (c[0] - 20) + (c[1] - 5) * (c[1] - 5)));
  };
  for (uint64_t seed = 1; seed <= 10; ++seed) EXPECT_EQ(run_searcher<SaSearcher>(space, seed, 120, bowl).best, 1.0);
}

}  // namespace
}  // namespace aoe::search::testing
