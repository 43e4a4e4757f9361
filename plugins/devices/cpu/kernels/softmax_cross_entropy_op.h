// SoftmaxCrossEntropyWithLogits (docs/training.md): per row of logits
// [N, K] against labels [N, K], the loss -Σ labels · log softmax(logits)
// and its gradient softmax(logits) - labels.
#pragma once

#include <string>
#include <vector>

#include "step_op.h"

namespace aoe::cpu {

class SoftmaxCrossEntropyOp final : public ThreadedOp {
 public:
  SoftmaxCrossEntropyOp(const sdk::OpTask& task, const HostCpu& host);
  // Labels as a distribution has them.
  ValueRange input_range(size_t i) const override { return i == 1 ? ValueRange{0.0f, 1.0f} : ValueRange{-4.0f, 4.0f}; }
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  int64_t n_ = 1, k_ = 1;
};

}  // namespace aoe::cpu
