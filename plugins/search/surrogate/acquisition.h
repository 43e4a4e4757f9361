// Expected improvement (Jones, Schonlau & Welch, 1998) of a time to be
// minimised, on a log scale, over the best time measured so far.
#pragma once

#include <algorithm>
#include <cmath>

namespace aoe::search::surrogate {

// `best`, `mean`: log times; `spread`: the model's uncertainty about `mean`.
inline double expected_improvement(double best, double mean, double spread) {
  const double gain = best - mean;
  if (!(spread > 0)) return std::max(gain, 0.0);
  const double z = gain / spread;
  const double cdf = 0.5 * std::erfc(-z / std::sqrt(2.0));
  const double pdf = std::exp(-0.5 * z * z) / std::sqrt(2.0 * 3.14159265358979323846);
  return gain * cdf + spread * pdf;
}

}  // namespace aoe::search::surrogate
