// ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd over any axes;
// ReduceSumSquare, ReduceL1, ReduceL2, ReduceLogSum, ReduceLogSumExp as a
// sum between a map of each element and a map of each result; and
// GlobalAveragePool / GlobalMaxPool as reductions over the spatial dims.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cpu_op.h"
#include "reduce.h"

namespace aoe::cpu {

// The op types ReduceOp runs.
bool is_reduce_op(const std::string& op_type);

class ReduceOp final : public CpuOp {
 public:
  enum Knob : size_t { kIsa, kSplit, kAccumulators, kThreads, kKnobCount };

  ReduceOp(const sdk::OpTask& task, const HostCpu& host);

  std::string check(const sdk::Config& config) const override;
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

  // What each element becomes before the sum, and each sum after it.
  enum class Before { none, square, abs, exp };
  enum class After { none, sqrt, log };

  // One pass reduces one run of adjacent reduced dims.
  struct Pass {
    int64_t outer, reduced, inner;
  };

 private:
  friend class ReduceKernel;
  const HostCpu& host_;
  ReduceKind kind_ = ReduceKind::sum;
  Before before_ = Before::none;
  After after_ = After::none;
  std::vector<bool> reduced_;  // per input dim
  std::vector<Pass> passes_;   // innermost run first
  int64_t total_reduced_ = 1;
  bool identity_ = false;      // nothing to reduce: a copy
};

}  // namespace aoe::cpu
