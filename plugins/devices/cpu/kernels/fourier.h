// The discrete Fourier transform of one line of points, as DFT and STFT
// take it: X[k] = sum_j x[j] e^(-+2 pi i j k / n), / n when inverse. A
// radix-2 FFT where n is a power of two, else the direct sum.
#pragma once

#include <cstdint>
#include <vector>

namespace aoe::cpu {

// Where a line's points lie: `len` of them (zero past them, up to n), each
// `stride` floats apart, one float each (real) or two (re, im); each scaled
// by window[j] where there is a window.
struct FourierLine {
  const float* x = nullptr;
  int64_t stride = 1, len = 0;
  bool complex = false;
  const float* window = nullptr;
};

class FourierPlan {
 public:
  FourierPlan(int64_t n, bool inverse);
  // The first `bins` of X (k < bins <= n), (re, im) at y + k * y_stride.
  // scratch: 2 n floats.
  void transform(const FourierLine& line, float* y, int64_t y_stride, int64_t bins, float* scratch) const;
  int64_t n() const { return n_; }

 private:
  int64_t n_;
  bool inverse_, radix2_;
  std::vector<float> cos_, sin_;  // of 2 pi k / n, the sign of the direction in sin_
  std::vector<int64_t> reversed_;  // bit-reversed index, for the FFT
};

// The same sum in double, point by point: what the kernels are checked against.
void fourier_reference(const FourierLine& line, int64_t n, bool inverse, float* y, int64_t y_stride, int64_t bins);

}  // namespace aoe::cpu
