// Normalisations by the mean and variance over a set of axes, one pair per
// position of the others: InstanceNormalization (over the spatial axes of
// N x C x ..., then scale and B per channel; epsilon inside the root) and
// MeanVarianceNormalization (over `axes`, default N, H, W: (x - mean) /
// (sqrt(variance) + 1e-9), as ONNX's function defines it).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cpu_op.h"

namespace aoe::cpu {

class MomentsNormOp final : public CpuOp {
 public:
  enum Knob : size_t { kThreads, kKnobCount };

  MomentsNormOp(const sdk::OpTask& task, const HostCpu& host);
  std::string check(const sdk::Config& config) const override;
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  friend class MomentsNormKernel;
  bool instance_ = false;
  double epsilon_ = 1e-5;
  std::vector<bool> reduced_;        // per axis
  Shape kept_;                       // the input with each reduced axis 1
  std::vector<int64_t> kept_steps_;  // per axis: its stride among the kept positions, 0 where reduced
  int64_t count_ = 1;                // elements per mean
};

}  // namespace aoe::cpu
