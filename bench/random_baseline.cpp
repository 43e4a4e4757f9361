#include "random_baseline.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

namespace aoe::bench {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// E[min of m draws without replacement from `sorted`] (ascending, failures
// +inf last), counting `if_none` when every draw failed. With x_i the i-th
// value and S_i the chance that all m draws are worse than it,
// C(n - i, m) / C(n, m): E = x_1 + sum_i (x_{i+1} - x_i) S_i, where the value
// after the last finite one is if_none.
double expected_min(const std::vector<double>& sorted, uint64_t m, double if_none) {
  const size_t n = sorted.size();
  if (m == 0 || n == 0 || !(sorted[0] < kInf)) return if_none;
  const auto finite = static_cast<size_t>(std::count_if(sorted.begin(), sorted.end(), [](double v) { return v < kInf; }));
  double survive = 1, expected = sorted[0];
  for (size_t i = 1; i <= finite; ++i) {
    const double worse = static_cast<double>(n - i);  // values after the i-th
    survive *= worse < static_cast<double>(m) ? 0 : (worse - static_cast<double>(m) + 1) / (worse + 1);
    if (survive == 0) break;
    const double next = i < finite ? sorted[i] : if_none;
    expected += (next - sorted[i - 1]) * survive;
  }
  return expected;
}

}  // namespace

RandomBaseline::RandomBaseline(std::vector<double> times, std::vector<double> costs, std::optional<size_t> first)
    : size_(times.size()) {
  if (costs.size() != times.size())
    throw std::invalid_argument("random baseline: " + std::to_string(times.size()) + " times but " +
                                std::to_string(costs.size()) + " costs");
  std::vector<double> sorted = times;
  std::sort(sorted.begin(), sorted.end());
  const auto valid = static_cast<size_t>(std::count_if(sorted.begin(), sorted.end(), [](double v) { return v < kInf; }));
  if (valid == 0) throw std::invalid_argument("random baseline: no config runs");
  optimum_ = sorted[0];
  median_ = valid % 2 ? sorted[valid / 2] : (sorted[valid / 2 - 1] + sorted[valid / 2]) / 2;
  unmeasured_ = std::accumulate(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(valid), 0.0) /
                static_cast<double>(valid);
  const double total_cost = std::accumulate(costs.begin(), costs.end(), 0.0);
  mean_cost_ = total_cost / static_cast<double>(size_);
  if (!(mean_cost_ > 0)) throw std::invalid_argument("random baseline: evaluating the configs costs nothing");
  rest_cost_ = mean_cost_;
  drawn_ = std::move(sorted);
  if (!first) return;

  if (*first >= size_ || !(times[*first] < kInf))
    throw std::invalid_argument("random baseline: the first config must be one of the " + std::to_string(size_) +
                                " and run");
  first_time_ = times[*first];
  first_cost_ = costs[*first];
  if (size_ > 1 && total_cost > first_cost_) rest_cost_ = (total_cost - first_cost_) / static_cast<double>(size_ - 1);
  drawn_.clear();
  bool skipped = false;  // the first config itself leaves the draws once
  for (size_t i = 0; i < size_; ++i) {
    if (i == *first && !skipped) {
      skipped = true;
      continue;
    }
    drawn_.push_back(times[i] < *first_time_ ? times[i] : kInf);
  }
  std::sort(drawn_.begin(), drawn_.end());
}

double RandomBaseline::expected_best(uint64_t m) const {
  if (m == 0) return unmeasured_;
  if (!first_time_) return expected_min(drawn_, m, unmeasured_);
  // The first draw is the given config; the other m - 1 can only improve on it.
  return expected_min(drawn_, m - 1, *first_time_);
}

double RandomBaseline::at_time(double time) const {
  // The factor absorbs rounding, so a time that is a whole number of draws counts them all.
  const auto draws = [](double t, double cost) {
    return t <= 0 ? uint64_t{0} : static_cast<uint64_t>(std::floor(t / cost * (1 + 1e-12)));
  };
  if (!first_time_) return expected_best(draws(time, rest_cost_));
  if (time < first_cost_ * (1 - 1e-12)) return unmeasured_;
  return expected_best(1 + draws(time - first_cost_, rest_cost_));
}

uint64_t RandomBaseline::draws_to(double target) const {
  // The expected best only falls with more draws: bisect.
  uint64_t lo = 1, hi = size_;
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (expected_best(mid) <= target) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

}  // namespace aoe::bench
