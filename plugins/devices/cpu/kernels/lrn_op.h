// LRN across channels: y = x / (bias + alpha / size * sum of x^2 over the
// `size` channels around)^beta, on N x C x ...
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cpu_op.h"

namespace aoe::cpu {

class LrnOp final : public CpuOp {
 public:
  enum Knob : size_t { kThreads, kKnobCount };

  LrnOp(const sdk::OpTask& task, const HostCpu& host);
  std::string check(const sdk::Config& config) const override;
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  friend class LrnKernel;
  double alpha_ = 1e-4, beta_ = 0.75, bias_ = 1.0;
  int64_t size_ = 1, n_ = 1, channels_ = 1, plane_ = 1;
};

}  // namespace aoe::cpu
