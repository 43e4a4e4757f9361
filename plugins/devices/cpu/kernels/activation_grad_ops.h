// Gradients of activations (docs/training.md): ReluGradV2 (dy where the
// ReLU's output is positive), Relu6Grad (dy where 0 < x < 6), GeLUGrad
// (dy · (Φ(x) + x · φ(x)), GELU by erf), SigmoidGrad (dy · y · (1 - y)),
// HardSwishGrad, HardSigmoidGrad and SoftmaxGradExt (y · (dy - Σ_axis dy · y)).
#pragma once

#include <string>
#include <vector>

#include "step_op.h"

namespace aoe::cpu {

class ActivationGradOp final : public ThreadedOp {
 public:
  ActivationGradOp(const sdk::OpTask& task, const HostCpu& host);
  // Sigmoid's y lies in [0, 1]; the others' x spans every branch of its gradient.
  ValueRange input_range(size_t i) const override;
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  enum class Kind { relu, relu6, gelu, sigmoid, hard_swish, hard_sigmoid };
  // One element's dx but GeLUGrad's: float in the kernel, double in the reference.
  template <class T>
  T element_grad(T dy, T v) const;

  Kind kind_ = Kind::relu;
  // HardSigmoidGrad's slope and the open range of x where alpha · x + beta
  // lies in (0, 1), in float so the kernel and the reference mask alike.
  float alpha_ = 0, lo_ = 0, hi_ = 0;
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
