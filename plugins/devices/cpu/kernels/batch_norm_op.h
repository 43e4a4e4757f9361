// Inference BatchNormalization that no Conv folds: per channel y = x * a + b,
// a = scale / sqrt(var + epsilon) and b = B - mean * a, over N x C planes
// the threads share. In training (training_mode 1) each channel is
// normalised by its own batch mean and (population) variance, and the
// optional running_mean and running_var outputs blend the given statistics
// with them: input * momentum + batch * (1 - momentum).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cpu_op.h"
#include "isa.h"
#include "threaded_op.h"

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

class BatchNormTrainingModeOp final : public ThreadedOp {
 public:
  BatchNormTrainingModeOp(const sdk::OpTask& task, const HostCpu& host);
  ValueRange input_range(size_t i) const override { return i == 4 ? ValueRange{0.5f, 2.0f} : ValueRange{}; }
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  int64_t batch_ = 1, channels_ = 1, plane_ = 1;
  double epsilon_ = 1e-5, momentum_ = 0.9;
  bool running_ = false;  // the running_mean and running_var outputs
};

}  // namespace aoe::cpu
