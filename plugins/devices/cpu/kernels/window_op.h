// HannWindow, HammingWindow and BlackmanWindow (opset 17): a float32
// window of `size` points, periodic (the default) or symmetric. The size
// is an integer constant of the model: the output's extent gives it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cpu_op.h"

namespace aoe::cpu {

class WindowOp final : public CpuOp {
 public:
  enum Knob : size_t { kThreads, kKnobCount };

  WindowOp(const sdk::OpTask& task, const HostCpu& host);
  std::string check(const sdk::Config& config) const override;
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  friend class WindowKernel;
  // a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N), N the size (periodic) or the size - 1.
  double a0_ = 0.5, a1_ = 0.5, a2_ = 0.0, period_ = 1;
};

}  // namespace aoe::cpu
