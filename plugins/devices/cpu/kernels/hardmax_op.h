// Hardmax (opset 13, any axis; the normaliser gives older ones one axis):
// 1 where an element is the first largest along the axis, 0 elsewhere.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cpu_op.h"

namespace aoe::cpu {

class HardmaxOp final : public CpuOp {
 public:
  enum Knob : size_t { kThreads, kKnobCount };

  HardmaxOp(const sdk::OpTask& task, const HostCpu& host);
  std::string check(const sdk::Config& config) const override;
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  friend class HardmaxKernel;
  int64_t outer_ = 1, extent_ = 1, inner_ = 1;
};

}  // namespace aoe::cpu
