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
  return time_in_turns({run}, [&](size_t) { flush(); }, o).front();
}

std::vector<Timing> time_in_turns(const std::vector<std::function<void()>>& runs,
                                  const std::function<void(size_t)>& flush, const TimingOptions& o,
                                  const std::function<void()>& ran) {
  const size_t n = runs.size();
  std::vector<Timing> t(n);
  const auto done = [&] {
    if (ran) ran();
  };
  for (const auto& run : runs)
    for (uint32_t i = 0; i < o.warmup; ++i) run(), done();
  // Group short warm runs so the clock's resolution and call costs vanish.
  if (!o.cold)
    for (size_t k = 0; k < n; ++k) {
      const auto t0 = Clock::now();
      runs[k]();
      const double once = std::max(since_us(t0), 0.01);
      done();
      t[k].runs_per_sample = static_cast<uint32_t>(std::clamp(std::ceil(o.min_sample_us / once), 1.0, 10000.0));
    }
  std::vector<std::vector<double>> samples(n);
  const auto start = Clock::now();
  const uint32_t min_repeats = std::max<uint32_t>(1, o.min_repeats);
  const uint32_t max_repeats = std::max(min_repeats, o.max_repeats);
  for (uint32_t round = 0;; ++round) {
    // Each kernel leads in turn: none always follows the same other one.
    for (size_t j = 0; j < n; ++j) {
      const size_t k = (j + round) % n;
      if (o.cold) flush(k);
      const auto t0 = Clock::now();
      for (uint32_t r = 0; r < t[k].runs_per_sample; ++r) runs[k]();
      samples[k].push_back(since_us(t0) / t[k].runs_per_sample);
      done();
    }
    if (round + 1 < min_repeats) continue;
    const bool all_stable = std::all_of(samples.begin(), samples.end(), [&](const std::vector<double>& s) {
      return median_interval(s) <= o.stable_within;
    });
    if (all_stable || round + 1 >= max_repeats || since_us(start) >= o.max_seconds * 1e6 * static_cast<double>(n)) break;
  }
  for (size_t k = 0; k < n; ++k) {
    const auto& s = samples[k];
    t[k].samples = static_cast<uint32_t>(s.size());
    t[k].median_us = median_of(s);
    t[k].noise = relative_iqr(s);
    t[k].interval = s.size() >= 2 ? median_interval(s) : 1;
    t[k].stable = t[k].interval <= o.stable_within;
  }
  return t;
}

}  // namespace aoe::cpu
