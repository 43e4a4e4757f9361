// Gradients of LayerNormalization over the last axis (docs/training.md):
// LayerNormXBackpropV2 (dx, through the row's statistics too) and
// LayerNormBetaGammaBackpropV2 (dgamma, dbeta), from the forward op's
// per-row mean and invstd.
#pragma once

#include <string>
#include <vector>

#include "step_op.h"

namespace aoe::cpu {

class LayerNormGradOp final : public ThreadedOp {
 public:
  LayerNormGradOp(const sdk::OpTask& task, const HostCpu& host);
  ValueRange input_range(size_t i) const override { return i == 3 ? ValueRange{0.5f, 2.0f} : ValueRange{}; }
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  bool x_ = true;  // LayerNormXBackpropV2, else LayerNormBetaGammaBackpropV2
  int64_t rows_ = 1, d_ = 1;
};

}  // namespace aoe::cpu
