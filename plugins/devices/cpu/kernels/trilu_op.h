// Trilu: the upper (upper = 1) or lower triangle of each matrix of the last
// two axes, the k-th diagonal on; any dtype the device holds. k, optional,
// is read as the model runs.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "threaded_op.h"

namespace aoe::cpu {

class TriluOp final : public ThreadedOp {
 public:
  TriluOp(const sdk::OpTask& task, const HostCpu& host);
  ValueRange input_range(size_t i) const override { return i == 1 ? ValueRange{-2.0f, 2.0f} : ValueRange{}; }
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  bool upper_ = true;
  int64_t matrices_ = 1, rows_ = 1, cols_ = 1;
};

}  // namespace aoe::cpu
