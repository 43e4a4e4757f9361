// The worker's time-out bounds each run a job reports, not the job: a job
// of many short runs, each told to its progress, finishes however long
// they add up to; one run longer than the time-out is killed.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "worker.h"

namespace aoe::cpu {
namespace {

// `runs` runs of 100 ms each, every one reported; 800 ms in all.
sdk::Measurement runs_reported(WorkerProgress& progress, int runs = 8) {
  for (int i = 0; i < runs; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    progress.ran();
  }
  return sdk::Measurement::timed(100);
}

// One run of 800 ms.
sdk::Measurement one_long_run(WorkerProgress&) {
  std::this_thread::sleep_for(std::chrono::milliseconds(800));
  return sdk::Measurement::timed(800);
}

const WorkerOptions kHalfSecond{0.5};

TEST(Worker, IsolatedJobsOfManyShortRunsOutlastTheTimeOut) {
  const auto r = run_isolated(
      3, [](size_t i, WorkerProgress& p) { return i == 1 ? one_long_run(p) : runs_reported(p); }, kHalfSecond);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_TRUE(r[0].ok()) << r[0].message;
  EXPECT_EQ(r[1].status, sdk::ResultStatus::timeout);
  EXPECT_NE(r[1].message.find("a run of the candidate went past the 0.5 s time-out"), std::string::npos) << r[1].message;
  EXPECT_TRUE(r[2].ok()) << r[2].message;
}

TEST(Worker, JobsTogetherOfManyShortRunsOutlastTheTimeOut) {
  std::vector<sdk::Measurement> results;
  const bool all = run_together(
      2,
      [](WorkerProgress& p) {
        for (size_t i = 0; i < 2; ++i) {
          p.begin(1);
          p.report(i, runs_reported(p));
        }
      },
      kHalfSecond, results);
  EXPECT_TRUE(all);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_TRUE(results[0].ok() && results[1].ok());
}

TEST(Worker, JobsTogetherWithARunPastTheTimeOutAreKilled) {
  std::vector<sdk::Measurement> results;
  const bool all = run_together(
      1,
      [](WorkerProgress& p) {
        p.begin(1);
        p.report(0, one_long_run(p));
      },
      kHalfSecond, results);
  EXPECT_FALSE(all);
}

}  // namespace
}  // namespace aoe::cpu
