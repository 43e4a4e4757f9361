#include "ml_scores.h"

#include "op_util.h"

namespace aoe::cpu {

PostTransform post_transform_of(const std::string& name, const std::string& who) {
  if (name == "NONE") return PostTransform::none;
  if (name == "LOGISTIC") return PostTransform::logistic;
  if (name == "SOFTMAX") return PostTransform::softmax;
  if (name == "SOFTMAX_ZERO") return PostTransform::softmax_zero;
  if (name == "PROBIT") return PostTransform::probit;
  invalid(who + ": post_transform '" + name + "' is none of NONE, LOGISTIC, SOFTMAX, SOFTMAX_ZERO and PROBIT");
}

double probit(double p) {
  if (!(p > 0.0 && p < 1.0)) return p == 0.0 ? -INFINITY : p == 1.0 ? INFINITY : NAN;
  // Winitzki's approximation of erfinv, then Newton's method on erf.
  const double x = 2.0 * p - 1.0, a = 0.147, l = std::log((1.0 - x) * (1.0 + x));
  const double b = 2.0 / (M_PI * a) + 0.5 * l;
  double y = std::copysign(std::sqrt(std::sqrt(b * b - l / a) - b), x);
  for (int i = 0; i < 3; ++i) y -= (std::erf(y) - x) / (2.0 / std::sqrt(M_PI) * std::exp(-y * y));
  return std::sqrt(2.0) * y;
}

}  // namespace aoe::cpu
