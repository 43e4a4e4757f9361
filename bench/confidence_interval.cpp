#include "confidence_interval.h"

#include <cmath>
#include <numbers>
#include <numeric>
#include <stdexcept>

namespace aoe::bench {
namespace {

// P(0 <= T <= x) for Student's t: its density integrated by Simpson's rule
// in the variable u = atan(t), which keeps the heavy tail of df = 1 finite.
double t_mass_from_zero(double x, double df) {
  const double norm = std::exp(std::lgamma((df + 1) / 2) - std::lgamma(df / 2)) / std::sqrt(df * std::numbers::pi);
  const auto density_u = [&](double u) {  // f(tan u) · d(tan u)/du
    const double t = std::tan(u), c = std::cos(u);
    return norm * std::pow(1 + t * t / df, -(df + 1) / 2) / (c * c);
  };
  const double end = std::atan(x);
  const int steps = 400;  // even
  const double h = end / steps;
  double sum = density_u(0) + density_u(end);
  for (int i = 1; i < steps; ++i) sum += density_u(i * h) * (i % 2 ? 4 : 2);
  return sum * h / 3;
}

}  // namespace

double student_t_quantile(double p, double df) {
  if (!(df >= 1) || !(p >= 0.5 && p < 1)) throw std::invalid_argument("student_t_quantile: needs df >= 1 and 0.5 <= p < 1");
  // The CDF only rises: bisect on the mass above zero, p - 1/2.
  double lo = 0, hi = 1;
  while (t_mass_from_zero(hi, df) < p - 0.5) hi *= 2;
  for (int i = 0; i < 100 && hi - lo > 1e-9 * hi; ++i) {
    const double mid = (lo + hi) / 2;
    (t_mass_from_zero(mid, df) < p - 0.5 ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

Interval confidence_interval_95(const std::vector<double>& samples) {
  if (samples.empty()) throw std::invalid_argument("confidence interval of no samples");
  const double n = static_cast<double>(samples.size());
  Interval out;
  out.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / n;
  if (samples.size() < 2) return out;
  double ss = 0;
  for (double x : samples) ss += (x - out.mean) * (x - out.mean);
  out.half_width = student_t_quantile(0.975, n - 1) * std::sqrt(ss / (n - 1)) / std::sqrt(n);
  return out;
}

}  // namespace aoe::bench
