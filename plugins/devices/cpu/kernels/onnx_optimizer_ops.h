// The optimizers of ONNX's training domain (ai.onnx.preview.training):
// Adagrad, Momentum (standard or Nesterov) and Adam, one step over any
// number of tensors. Inputs: the learning rate R, the update count T (both
// read as the model runs), then each tensor's X, then each one's G, then
// its state (Adagrad H; Momentum V; Adam V, then H). Outputs: each new X,
// then each new state, in the same order.
#pragma once

#include <string>
#include <vector>

#include "threaded_op.h"

namespace aoe::cpu {

class OnnxOptimizerOp final : public ThreadedOp {
 public:
  enum Kind { kAdagrad, kMomentum, kNesterov, kAdam };

  OnnxOptimizerOp(const sdk::OpTask& task, const HostCpu& host);
  // T counts updates; squared-gradient sums are never negative.
  ValueRange input_range(size_t i) const override;
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

  // One step's coefficients, worked out from R and T once per run.
  template <typename F>
  struct Step {
    F rate = 0, epsilon = 0, norm = 0, post = 1, alpha = 0, beta = 0;
  };

 private:
  // Groups of tensors each optimized one has: X, G and 1 or 2 of state.
  size_t groups() const { return kind_ == kAdam ? 4 : 3; }
  template <typename F>
  Step<F> step(double r, double t) const;
  template <typename F>
  void update(const Step<F>& s, const std::vector<const float*>& in, const std::vector<float*>& out, size_t tensor,
              int64_t begin, int64_t end) const;

  Kind kind_ = kAdam;
  size_t tensors_ = 0;
  std::vector<int64_t> counts_;  // elements of each optimized tensor
  double alpha_ = 0, beta_ = 0, epsilon_ = 0, decay_ = 0, norm_ = 0, norm_post_ = 0;
};

}  // namespace aoe::cpu
