// Range: start, start + delta, ... below limit, of any dtype the device
// holds; start and delta read as the model runs, the count the output's
// extent (static shapes: the frontend knows it where they are constants).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cpu_op.h"

namespace aoe::cpu {

class RangeOp final : public CpuOp {
 public:
  RangeOp(const sdk::OpTask& task, const HostCpu& host);
  std::string check(const sdk::Config& config) const override;
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;
};

}  // namespace aoe::cpu
