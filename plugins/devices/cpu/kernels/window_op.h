// HannWindow, HammingWindow and BlackmanWindow (opset 17): a float32
// window of `size` points, periodic (the default) or symmetric. The size
// is an integer constant of the model: the output's extent gives it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "threaded_op.h"

namespace aoe::cpu {

class WindowOp final : public ThreadedOp {
 public:
  WindowOp(const sdk::OpTask& task, const HostCpu& host);
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  // a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N), N the size (periodic) or the size - 1.
  double a0_ = 0.5, a1_ = 0.5, a2_ = 0.0, period_ = 1;
};

}  // namespace aoe::cpu
