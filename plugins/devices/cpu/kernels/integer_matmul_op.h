// MatMulInteger and QLinearMatMul: numpy MatMul of 8-bit integer tensors
// less their zero points (per tensor, per row of A, per column of B),
// summed exactly in int64. MatMulInteger gives the int32 sums;
// QLinearMatMul scales each by a_scale * b_scale / y_scale (scales per
// tensor, row or column as the zero points), rounds half to even, adds
// y_zero_point and saturates to its dtype. Integers are held as
// whole-number floats (held_dtype.h); a sum past 2^24 is the nearest float.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "quantized.h"
#include "threaded_op.h"

namespace aoe::cpu {

class IntegerMatMulOp final : public ThreadedOp {
 public:
  IntegerMatMulOp(const sdk::OpTask& task, const HostCpu& host);
  ValueRange input_range(size_t i) const override { return ranges_.at(i); }
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  // QLinearMatMul's inputs in order; MatMulInteger takes A, B and the two zero points.
  enum Role : size_t { kA, kAScale, kAZero, kB, kBScale, kBZero, kYScale, kYZero, kRoles };
  // The value of a per-row (A's side) or per-column (B's side) input `role`
  // for row or column `i` of A's or B's matrix `matrix`; `fallback` where absent.
  double param(const std::vector<const float*>& in, Role role, int64_t matrix, int64_t i, double fallback) const;

  std::string who_;
  std::array<int, kRoles> at_{};       // the task's input of each role, -1 where absent
  std::array<int64_t, kRoles> count_{};  // its elements
  bool requantize_ = false;
  QuantRange out_range_;
  int64_t m_ = 1, k_ = 1, n_ = 1;
  std::vector<int64_t> a_matrix_, b_matrix_;  // per output matrix: the one of A and of B it multiplies
  std::vector<ValueRange> ranges_;
};

}  // namespace aoe::cpu
