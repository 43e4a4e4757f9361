// Softmax and LayerNormalization: each row of the normalized axes at a
// time, rows shared among threads.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cpu_op.h"

namespace aoe::cpu {

// Softmax along `axis` (opset 13): the (outer, length, inner) view.
class SoftmaxOp final : public CpuOp {
 public:
  enum Knob : size_t { kIsa, kPasses, kThreads, kKnobCount };

  SoftmaxOp(const sdk::OpTask& task, const HostCpu& host);
  std::string check(const sdk::Config& config) const override;
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  friend class SoftmaxKernel;
  const HostCpu& host_;
  bool log_;  // LogSoftmax
  int64_t outer_ = 1, length_ = 1, inner_ = 1;
};

// LayerNormalization (opset 17): rows of the dims from `axis` on, with
// Scale and optional B, and the optional Mean and InvStdDev outputs.
class LayerNormOp final : public CpuOp {
 public:
  enum Knob : size_t { kIsa, kStats, kThreads, kKnobCount };

  LayerNormOp(const sdk::OpTask& task, const HostCpu& host);
  std::string check(const sdk::Config& config) const override;
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  friend class LayerNormKernel;
  const HostCpu& host_;
  int64_t rows_ = 1, row_ = 1;
  float epsilon_ = 1e-5f;
  bool has_scale_ = true, has_bias_ = false;
  int64_t scale_step_ = 1, bias_step_ = 1;
};

}  // namespace aoe::cpu
