// EyeLike: a float32 tensor of the 2-D input's shape (of any type: its
// values are not read), 1 on the diagonal shifted by `k`, 0 elsewhere.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cpu_op.h"

namespace aoe::cpu {

class EyeLikeOp final : public CpuOp {
 public:
  enum Knob : size_t { kThreads, kKnobCount };

  EyeLikeOp(const sdk::OpTask& task, const HostCpu& host);
  std::string check(const sdk::Config& config) const override;
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  friend class EyeLikeKernel;
  int64_t k_ = 0;
};

}  // namespace aoe::cpu
