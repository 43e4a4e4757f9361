#include "fourier.h"

#include <algorithm>
#include <cmath>

namespace aoe::cpu {

namespace {

bool power_of_two(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

// Point j of the line as (re, im), windowed; zero past its length.
template <typename T>
void point(const FourierLine& line, int64_t j, T& re, T& im) {
  if (j >= line.len) return void(re = 0), void(im = 0);
  const float* p = line.x + j * line.stride;
  const T w = line.window ? static_cast<T>(line.window[j]) : T(1);
  re = static_cast<T>(p[0]) * w;
  im = line.complex ? static_cast<T>(p[1]) * w : T(0);
}

}  // namespace

FourierPlan::FourierPlan(int64_t n, bool inverse) : n_(n), inverse_(inverse), radix2_(power_of_two(n)) {
  const double sign = inverse ? 1.0 : -1.0;
  cos_.resize(static_cast<size_t>(n));
  sin_.resize(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) {
    const double angle = 2 * M_PI * static_cast<double>(k) / static_cast<double>(n);
    cos_[k] = static_cast<float>(std::cos(angle));
    sin_[k] = static_cast<float>(sign * std::sin(angle));
  }
  if (!radix2_) return;
  int bits = 0;
  while ((int64_t{1} << bits) < n) ++bits;
  reversed_.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    int64_t r = 0;
    for (int b = 0; b < bits; ++b) r |= ((i >> b) & 1) << (bits - 1 - b);
    reversed_[i] = r;
  }
}

void FourierPlan::transform(const FourierLine& line, float* y, int64_t y_stride, int64_t bins, float* scratch) const {
  const int64_t n = n_;
  const float scale = inverse_ ? 1.0f / static_cast<float>(n) : 1.0f;
  if (radix2_) {
    // Iterative Cooley-Tukey: the points in bit-reversed order, then log2 n rounds of butterflies.
    for (int64_t j = 0; j < n; ++j) point(line, j, scratch[2 * reversed_[j]], scratch[2 * reversed_[j] + 1]);
    for (int64_t half = 1; half < n; half *= 2) {
      const int64_t step = n / (2 * half);
      for (int64_t start = 0; start < n; start += 2 * half)
        for (int64_t j = 0; j < half; ++j) {
          float* a = scratch + 2 * (start + j);
          float* b = a + 2 * half;
          const float c = cos_[j * step], s = sin_[j * step];
          const float br = b[0] * c - b[1] * s, bi = b[0] * s + b[1] * c;
          b[0] = a[0] - br, b[1] = a[1] - bi;
          a[0] += br, a[1] += bi;
        }
    }
    for (int64_t k = 0; k < bins; ++k) y[k * y_stride] = scratch[2 * k] * scale, y[k * y_stride + 1] = scratch[2 * k + 1] * scale;
    return;
  }
  // The direct sum: the twiddle of j k read from the table at j k mod n.
  const int64_t len = std::min(line.len, n);
  for (int64_t j = 0; j < len; ++j) point(line, j, scratch[2 * j], scratch[2 * j + 1]);
  for (int64_t k = 0; k < bins; ++k) {
    float re = 0, im = 0;
    for (int64_t j = 0, at = 0; j < len; ++j, at = (at + k) % n) {
      const float xr = scratch[2 * j], xi = scratch[2 * j + 1], c = cos_[at], s = sin_[at];
      re += xr * c - xi * s;
      im += xr * s + xi * c;
    }
    y[k * y_stride] = re * scale, y[k * y_stride + 1] = im * scale;
  }
}

void fourier_reference(const FourierLine& line, int64_t n, bool inverse, float* y, int64_t y_stride, int64_t bins) {
  const double sign = inverse ? 1.0 : -1.0;
  for (int64_t k = 0; k < bins; ++k) {
    double re = 0, im = 0;
    for (int64_t j = 0; j < std::min(line.len, n); ++j) {
      double xr = 0, xi = 0;
      point(line, j, xr, xi);
      const double angle = 2 * M_PI * static_cast<double>((j * k) % n) / static_cast<double>(n);
      const double c = std::cos(angle), s = sign * std::sin(angle);
      re += xr * c - xi * s;
      im += xr * s + xi * c;
    }
    const double scale = inverse ? 1.0 / static_cast<double>(n) : 1.0;
    y[k * y_stride] = static_cast<float>(re * scale), y[k * y_stride + 1] = static_cast<float>(im * scale);
  }
}

}  // namespace aoe::cpu
