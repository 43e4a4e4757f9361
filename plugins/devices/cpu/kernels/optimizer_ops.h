// The optimizer's kernels of a training step (docs/training.md), one per
// trainable weight: FusedMulAddN (weight decay added to the gradient),
// ApplyMomentum, ApplyAdam (bias-corrected at `step`), LAMB as
// LambApplyOptimizerAssign, SquareSumV1 and LambApplyWeightAssign.
#pragma once

#include <string>
#include <vector>

#include "step_op.h"

namespace aoe::cpu {

class OptimizerOp final : public ThreadedOp {
 public:
  enum Kind { kFusedMulAddN, kMomentum, kAdam, kLambOptimizer, kSquareSum, kLambWeight };

  OptimizerOp(const sdk::OpTask& task, const HostCpu& host);
  // Second moments and square sums are never negative.
  ValueRange input_range(size_t i) const override;
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  Kind kind_ = kMomentum;
  int64_t count_ = 0;
  double lr_ = 0, momentum_ = 0, beta1_ = 0, beta2_ = 0, epsilon_ = 0, weight_decay_ = 0, step_ = 1;
};

}  // namespace aoe::cpu
