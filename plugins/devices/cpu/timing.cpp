#include "timing.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace aoe::cpu {
namespace {

using Clock = std::chrono::steady_clock;

double since_us(Clock::time_point t0) { return std::chrono::duration<double, std::micro>(Clock::now() - t0).count(); }

double quantile(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<size_t>(std::floor(pos));
  const auto hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

}  // namespace

double median_of(std::vector<double> s) {
  if (s.empty()) return 0;
  std::sort(s.begin(), s.end());
  return quantile(s, 0.5);
}

double relative_iqr(std::vector<double> s) {
  if (s.size() < 2) return 0;
  std::sort(s.begin(), s.end());
  const double m = quantile(s, 0.5);
  return m > 0 ? (quantile(s, 0.75) - quantile(s, 0.25)) / m : 0;
}

double median_interval(std::vector<double> s) {
  if (s.size() < 2) return 1;
  std::sort(s.begin(), s.end());
  const double n = static_cast<double>(s.size());
  const double half = 0.98 * std::sqrt(n);
  const auto lo = static_cast<size_t>(std::max(0.0, std::floor(n / 2 - half)));
  const auto hi = static_cast<size_t>(std::min(n - 1, std::ceil(n / 2 + half) - 1));
  const double m = quantile(s, 0.5);
  return m > 0 ? (s[hi] - s[lo]) / (2 * m) : 0;
}

Timing time_kernel(const std::function<void()>& run, const std::function<void()>& flush, const TimingOptions& o) {
  for (uint32_t i = 0; i < o.warmup; ++i) run();
  Timing t;
  // Group short warm runs so the clock's resolution and call costs vanish.
  if (!o.cold) {
    const auto t0 = Clock::now();
    run();
    const double once = std::max(since_us(t0), 0.01);
    t.runs_per_sample = static_cast<uint32_t>(std::clamp(std::ceil(o.min_sample_us / once), 1.0, 10000.0));
  }
  std::vector<double> samples;
  const auto start = Clock::now();
  const uint32_t min_repeats = std::max<uint32_t>(1, o.min_repeats);
  const uint32_t max_repeats = std::max(min_repeats, o.max_repeats);
  for (;;) {
    if (o.cold) flush();
    const auto t0 = Clock::now();
    for (uint32_t r = 0; r < t.runs_per_sample; ++r) run();
    samples.push_back(since_us(t0) / t.runs_per_sample);
    if (samples.size() < min_repeats) continue;
    t.interval = median_interval(samples);
    if (t.interval <= o.stable_within) {
      t.stable = true;
      break;
    }
    if (samples.size() >= max_repeats || since_us(start) >= o.max_seconds * 1e6) break;
  }
  t.samples = static_cast<uint32_t>(samples.size());
  t.median_us = median_of(samples);
  t.noise = relative_iqr(samples);
  if (samples.size() >= 2) t.interval = median_interval(samples);
  t.stable = t.interval <= o.stable_within;
  return t;
}

}  // namespace aoe::cpu
