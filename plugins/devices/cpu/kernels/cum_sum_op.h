// CumSum: running sums along an axis (exclusive, reverse), of any dtype the
// device holds; the axis is read as the model runs.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cpu_op.h"

namespace aoe::cpu {

class CumSumOp final : public CpuOp {
 public:
  enum Knob : size_t { kThreads, kKnobCount };

  CumSumOp(const sdk::OpTask& task, const HostCpu& host);
  ValueRange input_range(size_t i) const override;
  std::string check(const sdk::Config& config) const override;
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  friend class CumSumKernel;
  // Outer slices, the axis's extent and the elements after it, for the axis `value` names.
  struct Split {
    int64_t outer = 1, extent = 1, inner = 1;
  };
  Split split(const float* axis) const;
  bool exclusive_ = false, reverse_ = false;
};

}  // namespace aoe::cpu
