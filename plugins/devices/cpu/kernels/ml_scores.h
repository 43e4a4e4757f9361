// What the classic machine-learning ops (ai.onnx.ml) do to their raw scores
// (post_transform), as ONNX Runtime does it, in float for the kernels and in
// double for their references: LOGISTIC, SOFTMAX and SOFTMAX_ZERO across a
// row of two scores or more, PROBIT (the inverse of the normal CDF; ONNX
// Runtime approximates it, to about 1e-3) on each, and a binary
// classifier's one score made two.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

namespace aoe::cpu {

enum class PostTransform { none, logistic, softmax, softmax_zero, probit };

// The attribute's value; an unknown name is invalid, naming `who`.
PostTransform post_transform_of(const std::string& name, const std::string& who);

// The inverse of the standard normal CDF: sqrt(2) erfinv(2p - 1).
double probit(double p);

template <typename T>
T logistic(T x) {
  const T v = T(1) / (T(1) + std::exp(-std::abs(x)));
  return x < 0 ? T(1) - v : v;
}

// `t` applied to a row of n >= 2 scores, in place.
template <typename T>
void transform_row(T* row, int64_t n, PostTransform t) {
  switch (t) {
    case PostTransform::none: return;
    case PostTransform::logistic:
      for (int64_t i = 0; i < n; ++i) row[i] = logistic(row[i]);
      return;
    case PostTransform::probit:
      for (int64_t i = 0; i < n; ++i) row[i] = static_cast<T>(probit(row[i]));
      return;
    case PostTransform::softmax:
    case PostTransform::softmax_zero: {
      // SOFTMAX_ZERO leaves a score of 0 out of the sum, as ONNX Runtime does.
      const bool zero = t == PostTransform::softmax_zero;
      T top = -std::numeric_limits<T>::max(), sum = 0;
      for (int64_t i = 0; i < n; ++i) top = std::max(top, row[i]);
      for (int64_t i = 0; i < n; ++i) {
        if (zero && std::abs(row[i]) <= T(1e-7)) {
          row[i] *= std::exp(-top);
        } else {
          row[i] = std::exp(row[i] - top);
          sum += row[i];
        }
      }
      for (int64_t i = 0; i < n; ++i) row[i] /= sum;
      return;
    }
  }
}

// How a binary classifier's one score s becomes two, as ONNX Runtime writes them.
enum class SecondClass {
  complement,  // [1 - s, s]: the score is a probability
  negated,     // [-s, s], or [logistic(-s), logistic(s)] under LOGISTIC
};

template <typename T>
void two_scores(T s, SecondClass second, PostTransform t, T* out) {
  if (second == SecondClass::complement) {
    out[0] = T(1) - s, out[1] = s;
  } else if (t == PostTransform::logistic) {
    out[0] = logistic(-s), out[1] = logistic(s);
  } else {
    out[0] = -s, out[1] = s;
  }
}

}  // namespace aoe::cpu
