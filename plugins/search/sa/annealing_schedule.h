// The temperature of simulated annealing, in units of log time: set from the
// rises seen between neighbours, so one schedule fits an op whose configs
// differ by 2% and one where they differ by 10x, and cooled geometrically
// over the budget.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace aoe::search::sa {

class AnnealingSchedule {
 public:
  AnnealingSchedule() = default;
  // At the start a typical rise is taken with probability `initial_acceptance`;
  // at the end of the budget the temperature is `final_ratio` of the initial one.
  AnnealingSchedule(double initial_acceptance, double final_ratio)
      : initial_acceptance_(std::clamp(initial_acceptance, 1e-6, 1 - 1e-6)), final_ratio_(final_ratio) {}

  // The rise in log time from a chain's config to a slower neighbour.
  void record_rise(double rise) { rises_.push_back(rise); }
  // Any measured log time: the spread stands in until rises are seen.
  void record_time(double log_time) {
    ++times_;
    const double d = log_time - mean_;
    mean_ += d / static_cast<double>(times_);
    m2_ += d * (log_time - mean_);
  }

  // `progress`: the share of the budget spent, 0 to 1.
  double temperature(double progress) const {
    const double start = scale() / -std::log(initial_acceptance_);
    return start * std::pow(final_ratio_, std::clamp(progress, 0.0, 1.0));
  }

  // The median rise, robust to the odd neighbour that is ten times slower.
  double scale() const {
    constexpr double kFallback = 0.1;  // nothing measured yet: a 10% rise is typical
    if (!rises_.empty()) {
      std::vector<double> r = rises_;
      auto mid = r.begin() + static_cast<std::ptrdiff_t>(r.size() / 2);
      std::nth_element(r.begin(), mid, r.end());
      return std::max(*mid, 1e-6);
    }
    if (times_ >= 2) return std::max(std::sqrt(m2_ / static_cast<double>(times_ - 1)), 1e-6);
    return kFallback;
  }

 private:
  double initial_acceptance_ = 0.5;
  double final_ratio_ = 0.02;
  std::vector<double> rises_;
  uint64_t times_ = 0;
  double mean_ = 0;
  double m2_ = 0;
};

}  // namespace aoe::search::sa
