// The figures every mode writes into AOE's result files, held to the
// examples AOE documents.
#include <gtest/gtest.h>

#include "report_fields.h"

namespace aoe::modes {
namespace {

TEST(Percent, IsBeforeMinusAfterOverAfterAsEveryAoeExample) {
  EXPECT_EQ(percent(134, 99), "35.35%");                  // an operator, us
  EXPECT_EQ(percent(113.588725, 113.236731), "0.31%");    // a model, ms
  EXPECT_EQ(percent(5.600486, 3.610442), "55.11%");       // a subgraph, ms: cut to two decimals, not rounded
}

TEST(Percent, ExactFiguresAndSlowdowns) {
  EXPECT_EQ(percent(2, 1), "100.00%");
  EXPECT_EQ(percent(1, 1), "0.00%");
  EXPECT_EQ(percent(112.34, 100), "12.34%");
  EXPECT_EQ(percent(99, 100), "-1.00%");
  EXPECT_EQ(percent(1, 0), "0.00%");  // nothing measured after: no figure to divide by
}

TEST(TuningResult, FailedOnlyWhenAFinishedRunCouldNotTuneATask) {
  EXPECT_EQ(tuning_result(true, false), "tuning successful");
  EXPECT_EQ(tuning_result(true, true), "tuning failed");
  EXPECT_EQ(tuning_result(false, true), "tuning incomplete");
  EXPECT_EQ(tuning_result(false, false), "tuning incomplete");
}

}  // namespace
}  // namespace aoe::modes
