// DynamicQuantizeLinear: x to uint8 with the scale and zero point its own
// range gives (the range widened to hold 0): y_scale = (max - min) / 255,
// y_zero_point = saturate(round(-min / y_scale)), y = saturate(round(x /
// y_scale) + y_zero_point), rounding half to even, in float32 as the
// definition's tensors are. An all-zero x gives scale 0, zero point 0, y 0.
#pragma once

#include <vector>

#include "threaded_op.h"

namespace aoe::cpu {

class DynamicQuantizeOp final : public ThreadedOp {
 public:
  DynamicQuantizeOp(const sdk::OpTask& task, const HostCpu& host);
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  int64_t count_ = 0;
};

}  // namespace aoe::cpu
