// Gradients of pooling (docs/training.md): MaxPoolGradWithArgmax adds each
// window's dy to the x it took the max from (the first, on ties), and
// GlobalAveragePoolGrad spreads dy / (H · W) over the map.
#pragma once

#include <string>
#include <vector>

#include "pool_op.h"
#include "step_op.h"

namespace aoe::cpu {

class MaxPoolGradOp final : public ThreadedOp {
 public:
  MaxPoolGradOp(const sdk::OpTask& task, const HostCpu& host);
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  int64_t planes_ = 1;
  Window3 w_;
};

class GlobalAveragePoolGradOp final : public ThreadedOp {
 public:
  GlobalAveragePoolGradOp(const sdk::OpTask& task, const HostCpu& host);
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  int64_t planes_ = 1, plane_ = 1;
};

}  // namespace aoe::cpu
