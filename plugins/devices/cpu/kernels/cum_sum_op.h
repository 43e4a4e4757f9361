// CumSum: running sums along an axis (exclusive, reverse), of any dtype the
// device holds; the axis is read as the model runs.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "threaded_op.h"

namespace aoe::cpu {

class CumSumOp final : public ThreadedOp {
 public:
  CumSumOp(const sdk::OpTask& task, const HostCpu& host);
  ValueRange input_range(size_t i) const override;
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  // Outer slices, the axis's extent and the elements after it, for the axis `value` names.
  struct Split {
    int64_t outer = 1, extent = 1, inner = 1;
  };
  Split split(const float* axis) const;
  bool exclusive_ = false, reverse_ = false;
};

}  // namespace aoe::cpu
