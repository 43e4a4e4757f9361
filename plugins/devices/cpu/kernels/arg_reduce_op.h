// ArgMax and ArgMin (any axis, keepdims, select_last_index): the int64
// index of the largest or smallest value along the axis, held as a float
// (held_dtype.h). The input may be of any dtype the device holds.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cpu_op.h"

namespace aoe::cpu {

class ArgReduceOp final : public CpuOp {
 public:
  enum Knob : size_t { kThreads, kKnobCount };

  ArgReduceOp(const sdk::OpTask& task, const HostCpu& host);
  std::string check(const sdk::Config& config) const override;
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  friend class ArgReduceKernel;
  bool max_ = true, last_ = false;
  int64_t outer_ = 1, extent_ = 1, inner_ = 1;
};

}  // namespace aoe::cpu
