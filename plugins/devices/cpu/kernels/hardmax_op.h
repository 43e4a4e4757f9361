// Hardmax (opset 13, any axis; the normaliser gives older ones one axis):
// 1 where an element is the first largest along the axis, 0 elsewhere.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "threaded_op.h"

namespace aoe::cpu {

class HardmaxOp final : public ThreadedOp {
 public:
  HardmaxOp(const sdk::OpTask& task, const HostCpu& host);
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  int64_t outer_ = 1, extent_ = 1, inner_ = 1;
};

}  // namespace aoe::cpu
