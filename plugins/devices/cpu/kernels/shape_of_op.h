// Shape (start, end) and Size: what a static graph knows of its input,
// written as int64 values held as floats (held_dtype.h); the input's
// values are not read.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cpu_op.h"

namespace aoe::cpu {

class ShapeOfOp final : public CpuOp {
 public:
  ShapeOfOp(const sdk::OpTask& task, const HostCpu& host);
  std::string check(const sdk::Config& config) const override;
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  friend class ShapeOfKernel;
  std::vector<float> values_;
};

}  // namespace aoe::cpu
