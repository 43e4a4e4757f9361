// Gradients of activations (docs/training.md): ReluGradV2 (dy where the
// ReLU's output is positive), GeLUGrad (dy · (Φ(x) + x · φ(x)), GELU by
// erf) and SoftmaxGradExt (y · (dy - Σ_axis dy · y)).
#pragma once

#include <string>
#include <vector>

#include "step_op.h"

namespace aoe::cpu {

class ActivationGradOp final : public ThreadedOp {
 public:
  ActivationGradOp(const sdk::OpTask& task, const HostCpu& host);
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  bool gelu_ = false;
  int64_t count_ = 0;
};

class SoftmaxGradOp final : public ThreadedOp {
 public:
  SoftmaxGradOp(const sdk::OpTask& task, const HostCpu& host);
  // y as a softmax gives it.
  ValueRange input_range(size_t i) const override { return i == 1 ? ValueRange{0.0f, 1.0f} : ValueRange{}; }
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  int64_t outer_ = 1, axis_ = 1, inner_ = 1;  // extents before, along and after the axis
};

}  // namespace aoe::cpu
