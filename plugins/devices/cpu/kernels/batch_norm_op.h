// Inference BatchNormalization that no Conv folds: per channel y = x * a + b,
// a = scale / sqrt(var + epsilon) and b = B - mean * a, over N x C planes
// the threads share.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cpu_op.h"
#include "isa.h"

namespace aoe::cpu {

class BatchNormOp final : public CpuOp {
 public:
  enum Knob : size_t { kThreads, kKnobCount };

  BatchNormOp(const sdk::OpTask& task, const HostCpu& host);
  ValueRange input_range(size_t i) const override { return i == 4 ? ValueRange{0.5f, 2.0f} : ValueRange{}; }
  std::string check(const sdk::Config& config) const override;
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  friend class BatchNormKernel;
  int64_t batch_ = 1, channels_ = 1, plane_ = 1;
  double epsilon_ = 1e-5;
  const IsaKernels* isa_ = nullptr;  // the CPU's widest
};

}  // namespace aoe::cpu
