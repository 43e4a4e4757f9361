// Where: out = condition ? X : Y, the three broadcast numpy's way, X and Y
// of any dtype the device holds. The condition is read as the model runs
// (a bool held as 0 or 1), or from attribute "condition" where the frontend
// folded a constant one.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cpu_op.h"

namespace aoe::cpu {

class WhereOp final : public CpuOp {
 public:
  enum Knob : size_t { kThreads, kKnobCount };

  WhereOp(const sdk::OpTask& task, const HostCpu& host);
  std::string check(const sdk::Config& config) const override;
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  friend class WhereKernel;
  std::vector<float> condition_;  // 1 or 0, of the condition's shape; empty: input 0 at run time
  std::vector<Shape> aligned_;    // condition, X, Y at the output's rank
};

}  // namespace aoe::cpu
