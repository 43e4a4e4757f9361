// Concat and Split along one axis: in the (outer, axis x inner) view each
// input's (or output's) share of an outer row is one contiguous run, copied
// whole; the threads share the runs.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cpu_op.h"

namespace aoe::cpu {

class ConcatOp final : public CpuOp {
 public:
  enum Knob : size_t { kThreads, kKnobCount };

  ConcatOp(const sdk::OpTask& task, const HostCpu& host);
  std::string check(const sdk::Config& config) const override;
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  friend class ConcatKernel;
  size_t axis_ = 0;
  int64_t outer_ = 1, inner_ = 1;
};

// The split sizes are the outputs' extents along the axis.
class SplitOp final : public CpuOp {
 public:
  enum Knob : size_t { kThreads, kKnobCount };

  SplitOp(const sdk::OpTask& task, const HostCpu& host);
  std::string check(const sdk::Config& config) const override;
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  friend class SplitKernel;
  size_t axis_ = 0;
  int64_t outer_ = 1, inner_ = 1;
};

}  // namespace aoe::cpu
