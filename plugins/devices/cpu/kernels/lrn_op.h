// LRN across channels: y = x / (bias + alpha / size * sum of x^2 over the
// `size` channels around)^beta, on N x C x ...
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "threaded_op.h"

namespace aoe::cpu {

class LrnOp final : public ThreadedOp {
 public:
  LrnOp(const sdk::OpTask& task, const HostCpu& host);
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  double alpha_ = 1e-4, beta_ = 0.75, bias_ = 1.0;
  int64_t size_ = 1, n_ = 1, channels_ = 1, plane_ = 1;
};

}  // namespace aoe::cpu
