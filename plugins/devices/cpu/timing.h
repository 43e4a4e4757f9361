// Timing a kernel as careful tuners do: warm-up, then samples until the
// median is known to within a tolerance or a cap is reached, with a noise
// figure for every result.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace aoe::cpu {

struct TimingOptions {
  uint32_t warmup = 1;          // untimed runs first
  uint32_t min_repeats = 5;     // samples at least
  uint32_t max_repeats = 100;   // samples at most
  double stable_within = 0.02;  // stop when the median's 95% interval is within +-2%
  double max_seconds = 1.0;     // or when sampling has taken this long
  bool cold = false;            // flush the kernel's memory from the caches before each run
  double min_sample_us = 200;   // warm runs shorter than this are timed in groups
};

struct Timing {
  double median_us = 0;
  double noise = 0;      // (q3 - q1) / median of the samples
  double interval = 0;   // half-width of the median's 95% interval, relative to the median
  uint32_t samples = 0;
  uint32_t runs_per_sample = 1;
  bool stable = false;   // interval <= stable_within
};

// `run` is timed; `flush`, called before each run when cold, is not.
Timing time_kernel(const std::function<void()>& run, const std::function<void()>& flush, const TimingOptions& options);

// Several kernels timed in turns, one sample of each a round, until every
// median is known or a cap is reached (max_seconds counts once per kernel).
// On a shared machine a spell of load then slows them all alike, so their
// ratios hold where times taken one after another would not. `ran`, where
// given, is called after each warm-up run and each sample, untimed.
std::vector<Timing> time_in_turns(const std::vector<std::function<void()>>& runs,
                                  const std::function<void(size_t)>& flush, const TimingOptions& options,
                                  const std::function<void()>& ran = {});

// Statistics of samples (any order).
double median_of(std::vector<double> samples);
double relative_iqr(std::vector<double> samples);
// Distribution-free 95% interval of the median from order statistics
// (ranks n/2 -+ 0.98 sqrt(n)), as a half-width relative to the median.
double median_interval(std::vector<double> samples);

}  // namespace aoe::cpu
