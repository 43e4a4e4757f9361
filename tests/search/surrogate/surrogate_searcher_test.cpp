// The model-based searcher: the rules every searcher follows, its models,
// its speed on a large space, and better than uniform random search on
// synthetic tiling costs.
#include "surrogate_searcher.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "acquisition.h"
#include "extra_trees.h"
#include "knob_features.h"
#include "searcher_rules.h"
#include "synthetic_tuning.h"

namespace aoe::search::testing {

AOE_SEARCHER_RULES(Surrogate, SurrogateSearcher, "surrogate");

namespace {

std::unique_ptr<sdk::Searcher> make_surrogate() { return std::make_unique<SurrogateSearcher>(); }

TEST(SurrogateSearcher, BeatsRandomSearchOnAConstrainedEdge) {
  for (uint64_t budget : kContestBudgets) {
    const Standing f = contest("surrogate", "edge", constrained(edge_cost), budget, make_surrogate);
    EXPECT_LT(f.mean, f.random_mean);
  }
}

TEST(SurrogateSearcher, BeatsRandomSearchOnARuggedCost) {
  for (uint64_t budget : kContestBudgets) {
    const Standing f = contest("surrogate", "rugged", constrained(rugged_cost), budget, make_surrogate);
    EXPECT_LT(f.mean, f.random_mean);
  }
}

TEST(KnobFeatures, PositionsOneHotsAndLogSumsOfSizes) {
  // a and b are sizes; c is one-hot, d a flag; e starts at zero, so it is no size; f has no choice.
  const auto space = space_of(
      {Knob::power_of_two("a", KnobTag::schedule, 1, 8), Knob::integer("b", KnobTag::schedule, 1, 4),
       Knob::categorical("c", KnobTag::impl, {"x", "y", "z"}), Knob::categorical("d", KnobTag::schedule, {"off", "on"}),
       Knob::integer("e", KnobTag::schedule, 0, 3), Knob::integer("f", KnobTag::schedule, 5, 5)});
  const common::SpaceCoding coding(space);
  const surrogate::KnobFeatures features(coding);
  ASSERT_EQ(features.width(), 8u);
  std::vector<float> row(features.width());
  features.encode({2, 2, 1, 1, 3, 0}, row.data());  // a = 4, b = 3, c = y, d = on, e = 3
  const std::vector<float> expected{2.0f / 3, 2.0f / 3, 0, 1, 0, 1, 1, static_cast<float>(2 + std::log2(3.0))};
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_NEAR(row[i], expected[i], 1e-6) << i;
}

TEST(ExtraTrees, FitsASmoothFunction) {
  std::vector<float> x;
  std::vector<double> y;
  for (int i = 0; i <= 20; ++i)
    for (int j = 0; j <= 20; ++j) {
      x.push_back(static_cast<float>(i) / 20);
      x.push_back(static_cast<float>(j) / 20);
      y.push_back(i / 20.0 + 2 * j / 20.0);
    }
  ga::Draw draw;
  draw.seed(1);
  surrogate::ExtraTrees model;
  model.fit(x, 2, y, {32, 3, 2}, draw);
  // Between the grid points: within a tenth of a range of three.
  std::vector<float> probe;
  std::vector<double> truth;
  for (int i = 0; i < 20; ++i)
    for (int j = 0; j < 20; ++j) {
      probe.push_back((i + 0.5f) / 20);
      probe.push_back((j + 0.5f) / 20);
      truth.push_back((i + 0.5) / 20 + 2 * (j + 0.5) / 20);
    }
  const auto predicted = model.predict(probe.data(), truth.size());
  double error = 0;
  for (size_t i = 0; i < truth.size(); ++i) error += std::abs(predicted[i].mean - truth[i]) / truth.size();
  EXPECT_LT(error, 0.1);
  for (const auto& p : predicted) EXPECT_GE(p.spread, 0);
}

// m * n <= 64 is one cut on the log sum of the two: learnt from half the
// configs, it tells the other half apart.
TEST(ExtraTrees, LearnsAProductConstraintFromTheLogSumOfSizes) {
  const auto space =
      space_of({Knob::power_of_two("m", KnobTag::schedule, 1, 256), Knob::power_of_two("n", KnobTag::schedule, 1, 256),
                Knob::integer("k", KnobTag::schedule, 1, 4)});
  const common::SpaceCoding coding(space);
  const surrogate::KnobFeatures features(coding);
  const size_t width = features.width();
  std::vector<float> train, test;
  std::vector<double> fits_train;
  std::vector<bool> fits_test;
  for (uint64_t i = 0; i < coding.size(); ++i) {
    const auto g = coding.at(i);
    const auto c = coding.decode(g);
    std::vector<float>& rows = i % 2 == 0 ? train : test;
    rows.resize(rows.size() + width);
    features.encode(g, rows.data() + rows.size() - width);
    (i % 2 == 0 ? fits_train.push_back(c[0] * c[1] <= 64) : fits_test.push_back(c[0] * c[1] <= 64));
  }
  ga::Draw draw;
  draw.seed(2);
  surrogate::ExtraTrees model;
  model.fit(train, width, fits_train, {32, 3, 0}, draw);
  const auto predicted = model.predict(test.data(), fits_test.size());
  size_t right = 0;
  for (size_t i = 0; i < fits_test.size(); ++i) right += (predicted[i].mean > 0.5) == fits_test[i];
  EXPECT_GT(static_cast<double>(right) / static_cast<double>(fits_test.size()), 0.95);
}

TEST(ExpectedImprovement, WeighsGainAndUncertainty) {
  EXPECT_DOUBLE_EQ(surrogate::expected_improvement(1.0, 0.25, 0), 0.75);
  EXPECT_DOUBLE_EQ(surrogate::expected_improvement(0.0, 0.25, 0), 0);
  EXPECT_NEAR(surrogate::expected_improvement(0, 0, 0.1), 0.1 / std::sqrt(2 * 3.14159265358979323846), 1e-12);
  EXPECT_GT(surrogate::expected_improvement(0, 0.1, 0.2), surrogate::expected_improvement(0, 0.1, 0.1));
  EXPECT_GT(surrogate::expected_improvement(0, -0.1, 0.1), surrogate::expected_improvement(0, 0.1, 0.1));
}

// Refused configs cost no budget, so once the models expect little gain
// anywhere, an uncertain config that will most likely be refused can still be
// worth proposing: the share falls well below uniform, not to nothing.
TEST(SurrogateSearcher, LearnsToAvoidAKnobValueTheDeviceAlwaysRefuses) {
  // One implementation of four is never supported: a quarter of uniform draws.
  auto space = medium_space();
  space.knobs[3] = Knob::categorical("impl", KnobTag::impl, {"a", "b", "c", "unsupported"});
  const auto cost = [](const Config& c) {
    if (c[3] == 3) return Measurement::failed(ResultStatus::invalid, "unsupported");
    return medium_cost(c);
  };
  const auto run = run_searcher<SurrogateSearcher>(space, 11, 300, cost);
  EXPECT_EQ(run.measured, 300u);
  const size_t half = run.proposed.size() / 2;
  double late = 0;
  for (size_t i = half; i < run.proposed.size(); ++i) late += run.proposed[i][3] == 3;
  late /= static_cast<double>(run.proposed.size() - half);
  std::printf("share of proposals with the unsupported impl in the second half: %.3f (uniform 0.25)\n", late);
  EXPECT_LT(late, 0.1);
}

// 7^4 x 16 x 8 x 3 x 2 = 1843968 configs, a quarter of them valid: each
// call of propose for a batch of 8, the models refitted as results come in,
// stays well within the time a device takes to build and run one candidate.
TEST(SurrogateSearcher, ProposesQuicklyOnASpaceOfMillionsOfConfigs) {
  const auto space = space_of(
      {Knob::power_of_two("m_l0", KnobTag::schedule, 1, 64), Knob::power_of_two("n_l0", KnobTag::schedule, 1, 64),
       Knob::power_of_two("k_l0", KnobTag::schedule, 1, 64), Knob::power_of_two("m_l1", KnobTag::schedule, 1, 64),
       Knob::integer("block_dim", KnobTag::schedule, 1, 16), Knob::integer("unroll", KnobTag::schedule, 1, 8),
       Knob::categorical("layout", KnobTag::format, {"nd", "nz", "fractal"}),
       Knob::categorical("buffers", KnobTag::schedule, {"single", "double"})},
      {8, 8, 8, 16, 4, 2, 0, 0});
  const auto cost = [](const Config& c) {
    if (c[0] * c[2] * (c[7] + 1) > 1024 || c[3] < c[0] || c[4] * c[5] > 32)
      return Measurement::failed(ResultStatus::invalid, "does not fit");
    return Measurement::timed(4096.0 / static_cast<double>(c[0] * c[1]) + 512.0 / static_cast<double>(c[2]) +
                              static_cast<double>(c[3]) + 400.0 / static_cast<double>(c[4]) +
                              std::abs(static_cast<double>(c[5] - 4)) + 5.0 * static_cast<double>(c[6]));
  };
  ASSERT_GT(space.size(), 1e6);
  SurrogateSearcher s;
  s.start(space, {3, 600});
  std::vector<double> ms;
  uint64_t measured = 0;
  for (;;) {
    const auto begin = std::chrono::steady_clock::now();
    const auto batch = s.propose(8);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin).count());
    if (batch.empty()) break;
    for (const auto& c : batch) {
      const auto m = cost(c);
      measured += m.status != ResultStatus::invalid;
      s.observe(c, m);
    }
  }
  EXPECT_EQ(measured, 600u);
  std::vector<double> sorted = ms;
  std::sort(sorted.begin(), sorted.end());
  double mean = 0;
  for (double t : ms) mean += t / static_cast<double>(ms.size());
  const double median = sorted[sorted.size() / 2], p90 = sorted[sorted.size() * 9 / 10], worst = sorted.back();
  std::printf(
      "propose(8) on %.0f configs over %zu calls, up to 600 measurements: mean %.2f ms, median %.2f ms, "
      "90th percentile %.2f ms, slowest %.2f ms\n",
      space.size(), ms.size(), mean, median, p90, worst);
  EXPECT_LT(median, 50.0);
}

}  // namespace
}  // namespace aoe::search::testing
