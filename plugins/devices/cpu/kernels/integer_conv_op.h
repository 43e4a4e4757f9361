// ConvInteger and QLinearConv: convolution (1 to 3 spatial dims, groups,
// strides, pads, dilations, auto_pad) of 8-bit integer tensors less their
// zero points (x's per tensor, w's per tensor or per output channel),
// summed exactly in int64; a padded tap adds nothing. ConvInteger gives
// the int32 sums; QLinearConv adds its int32 bias B, scales each sum by
// x_scale * w_scale / y_scale (w_scale per tensor or channel), rounds half
// to even, adds y_zero_point and saturates to its dtype. Integers are held
// as whole-number floats (held_dtype.h).
#pragma once

#include <array>
#include <string>
#include <vector>

#include "pool_op.h"
#include "quantized.h"
#include "threaded_op.h"

namespace aoe::cpu {

class IntegerConvOp final : public ThreadedOp {
 public:
  IntegerConvOp(const sdk::OpTask& task, const HostCpu& host);
  ValueRange input_range(size_t i) const override { return ranges_.at(i); }
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  // QLinearConv's inputs in order; ConvInteger takes x, w and the two zero points.
  enum Role : size_t { kX, kXScale, kXZero, kW, kWScale, kWZero, kYScale, kYZero, kBias, kRoles };
  // Input `role`'s value for output channel `m` (one value, or one per channel); `fallback` where absent.
  double param(const std::vector<const float*>& in, Role role, int64_t m, double fallback) const;
  // A finished sum of output channel `m` as the output holds it.
  float output_of(const std::vector<const float*>& in, double sum, int64_t m) const;

  std::string who_;
  std::array<int, kRoles> at_{};
  std::array<int64_t, kRoles> count_{};
  bool requantize_ = false;
  QuantRange out_range_;
  int64_t n_ = 1, c_ = 1, m_ = 1, group_ = 1;
  Window3 win_;
  std::vector<ValueRange> ranges_;
};

}  // namespace aoe::cpu
