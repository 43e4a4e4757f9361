// A 95% confidence interval for the mean of independent runs: Student's t,
// mean ± t(0.975, n - 1) · sd / √n.
#pragma once

#include <vector>

namespace aoe::bench {

struct Interval {
  double mean = 0;
  double half_width = 0;  // 0 for a single sample: no spread to go by
  double low() const { return mean - half_width; }
  double high() const { return mean + half_width; }
};

// Throws std::invalid_argument for no samples.
Interval confidence_interval_95(const std::vector<double>& samples);

// The p-quantile of Student's t distribution with `df` degrees of freedom (df >= 1, 0.5 <= p < 1).
double student_t_quantile(double p, double df);

}  // namespace aoe::bench
