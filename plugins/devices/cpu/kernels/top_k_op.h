// TopK: the k largest (or smallest) values along an axis, sorted, and their
// int64 indices held as floats (held_dtype.h); ties keep the lower index
// first. k is the outputs' extent along the axis; a K fed as the model runs
// must agree with it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cpu_op.h"

namespace aoe::cpu {

class TopKOp final : public CpuOp {
 public:
  enum Knob : size_t { kThreads, kKnobCount };

  TopKOp(const sdk::OpTask& task, const HostCpu& host);
  std::string check(const sdk::Config& config) const override;
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  friend class TopKKernel;
  void require_k(const float* k) const;
  bool largest_ = true;
  int64_t outer_ = 1, extent_ = 1, inner_ = 1, k_ = 1;
};

}  // namespace aoe::cpu
