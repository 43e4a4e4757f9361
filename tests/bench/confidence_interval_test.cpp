// searcher_scores' confidence intervals: Student's t quantiles as tabulated,
// and intervals that cover the true mean about 95% of the time.
#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <vector>

#include "confidence_interval.h"

namespace aoe::bench {
namespace {

TEST(ConfidenceInterval, StudentTQuantilesAsTabulated) {
  EXPECT_NEAR(student_t_quantile(0.975, 1), 12.706, 1e-3);
  EXPECT_NEAR(student_t_quantile(0.975, 4), 2.776, 1e-3);
  EXPECT_NEAR(student_t_quantile(0.975, 24), 2.064, 1e-3);
  EXPECT_NEAR(student_t_quantile(0.975, 1e6), 1.960, 1e-3);
  EXPECT_NEAR(student_t_quantile(0.5, 10), 0, 1e-9);
}

TEST(ConfidenceInterval, MeanAndHalfWidth) {
  const Interval i = confidence_interval_95({1, 2, 3, 4, 5});
  EXPECT_DOUBLE_EQ(i.mean, 3);
  EXPECT_NEAR(i.half_width, 2.776 * std::sqrt(2.5) / std::sqrt(5.0), 1e-3);
  EXPECT_DOUBLE_EQ(confidence_interval_95({0.4}).half_width, 0);
  EXPECT_THROW(confidence_interval_95({}), std::invalid_argument);
}

TEST(ConfidenceInterval, CoversTheMeanOfNormalSamplesNinetyFivePercentOfTheTime) {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> normal(0.3, 2.0);
  int covered = 0;
  const int intervals = 2000;
  for (int k = 0; k < intervals; ++k) {
    std::vector<double> samples(5);
    for (auto& s : samples) s = normal(rng);
    const Interval i = confidence_interval_95(samples);
    covered += i.low() <= 0.3 && 0.3 <= i.high();
  }
  // 95% of 2000 has a standard deviation of 10: a z quantile in place of t would cover ~88%.
  EXPECT_NEAR(covered, 0.95 * intervals, 40);
}

}  // namespace
}  // namespace aoe::bench
