// The timing protocol: its statistics, and how many runs and flushes it makes.
#include <gtest/gtest.h>

#include <functional>
#include <thread>
#include <vector>

#include "timing.h"

namespace aoe::cpu {
namespace {

TEST(Timing, Statistics) {
  EXPECT_DOUBLE_EQ(median_of({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median_of({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(relative_iqr({1, 2, 3, 4, 5}), (4.0 - 2.0) / 3.0);
  // Five samples: the median's 95% interval spans them all.
  EXPECT_DOUBLE_EQ(median_interval({10, 11, 12, 13, 30}), (30.0 - 10.0) / (2 * 12.0));
  // More samples of the same spread pin the median down better.
  std::vector<double> many;
  for (int i = 0; i < 100; ++i) many.push_back(10 + i % 10);
  EXPECT_LT(median_interval(many), median_interval({10, 12, 14, 16, 19}));
}

TEST(Timing, SamplesUntilTheCapWhenNeverStable) {
  int runs = 0, flushes = 0;
  TimingOptions o;
  o.cold = true;
  o.warmup = 2;
  o.min_repeats = 4;
  o.max_repeats = 6;
  o.stable_within = 1e-12;
  o.max_seconds = 100;
  // Runs of 0 and 1 ms in turn: a spread no tolerance accepts.
  const Timing t = time_kernel(
      [&] {
        if (++runs % 2) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      },
      [&] { ++flushes; }, o);
  EXPECT_EQ(t.samples, 6u);
  EXPECT_EQ(t.runs_per_sample, 1u);
  EXPECT_EQ(flushes, 6) << "every cold sample starts from flushed caches";
  EXPECT_EQ(runs, 2 + 6);
  EXPECT_GE(t.noise, 0);
}

TEST(Timing, StopsAtTheTimeCap) {
  TimingOptions o;
  o.min_repeats = 2;
  o.max_repeats = 1000000;
  o.stable_within = 1e-12;
  o.max_seconds = 0.05;
  o.min_sample_us = 0;
  const Timing t = time_kernel([] { std::this_thread::sleep_for(std::chrono::milliseconds(5)); }, [] {}, o);
  EXPECT_GE(t.samples, 2u);
  EXPECT_LT(t.samples, 40u);
  EXPECT_FALSE(t.stable);
}

TEST(Timing, GroupsShortWarmRuns) {
  int runs = 0;
  TimingOptions o;
  o.min_repeats = 3;
  o.max_repeats = 3;
  const Timing t = time_kernel([&] { ++runs; }, [] { FAIL() << "warm runs never flush"; }, o);
  EXPECT_GT(t.runs_per_sample, 1u) << "a run far below the clock's resolution is timed in groups";
  EXPECT_EQ(runs, static_cast<int>(o.warmup + 1 + 3 * t.runs_per_sample));
}

TEST(Timing, TimesSeveralKernelsInTurns) {
  std::vector<int> order, flushed;
  TimingOptions o;
  o.cold = true;
  o.warmup = 1;
  o.min_repeats = 3;
  o.max_repeats = 3;
  std::vector<std::function<void()>> runs;
  for (int k = 0; k < 3; ++k) runs.push_back([&order, k] { order.push_back(k); });
  const auto t = time_in_turns(runs, [&](size_t k) { flushed.push_back(static_cast<int>(k)); }, o);
  ASSERT_EQ(t.size(), 3u);
  for (const auto& each : t) EXPECT_EQ(each.samples, 3u);
  // Warm-up, then one sample of each a round, each round led by the next kernel.
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 0, 1, 2, 1, 2, 0, 2, 0, 1}));
  EXPECT_EQ(flushed, (std::vector<int>{0, 1, 2, 1, 2, 0, 2, 0, 1})) << "each cold sample flushes its own kernel";
}

TEST(Timing, KernelsTimedInTurnsShareASpellOfLoad) {
  // The second kernel takes twice the first; a spell of load from the 11th
  // sample on slows whatever runs during it five times. Timed one after the
  // other, the second would have run in the spell only (a ratio of 10).
  int samples = 0;
  auto load = [&] { return samples >= 10 ? 5 : 1; };
  auto sleep_ms = [](double ms) { std::this_thread::sleep_for(std::chrono::microseconds(static_cast<int64_t>(ms * 1000))); };
  TimingOptions o;
  o.warmup = 0;
  o.cold = true;
  o.min_repeats = 15;
  o.max_repeats = 15;
  const auto t = time_in_turns({[&] { sleep_ms(1.0 * load()), ++samples; }, [&] { sleep_ms(2.0 * load()), ++samples; }},
                               [](size_t) {}, o);
  EXPECT_NEAR(t[1].median_us / t[0].median_us, 2.0, 0.6);
}

}  // namespace
}  // namespace aoe::cpu
