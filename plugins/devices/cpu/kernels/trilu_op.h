// Trilu: the upper (upper = 1) or lower triangle of each matrix of the last
// two axes, the k-th diagonal on; any dtype the device holds. k, optional,
// is read as the model runs.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cpu_op.h"

namespace aoe::cpu {

class TriluOp final : public CpuOp {
 public:
  enum Knob : size_t { kThreads, kKnobCount };

  TriluOp(const sdk::OpTask& task, const HostCpu& host);
  ValueRange input_range(size_t i) const override { return i == 1 ? ValueRange{-2.0f, 2.0f} : ValueRange{}; }
  std::string check(const sdk::Config& config) const override;
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  friend class TriluKernel;
  bool upper_ = true;
  int64_t matrices_ = 1, rows_ = 1, cols_ = 1;
};

}  // namespace aoe::cpu
