// Gather along any axis: output[outer, j, inner] = data[outer, indices[j],
// inner], negative indices counting from the end. The indices are the
// task's `indices` attribute where the model holds them as a constant (the
// frontend folds them), else its second input at run time; there, as every
// buffer of the device, they arrive as floats holding whole numbers, and a
// value out of range fails the run with its position.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cpu_op.h"

namespace aoe::cpu {

class GatherOp final : public CpuOp {
 public:
  enum Knob : size_t { kThreads, kKnobCount };

  GatherOp(const sdk::OpTask& task, const HostCpu& host);
  ValueRange input_range(size_t i) const override;
  std::string check(const sdk::Config& config) const override;
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  friend class GatherKernel;
  std::string name_;
  size_t axis_ = 0;
  int64_t outer_ = 1, extent_ = 0, inner_ = 1, count_ = 0;
  bool constant_ = false;
  std::vector<int64_t> indices_;  // constant ones, from 0 (negative ones shifted)
};

}  // namespace aoe::cpu
