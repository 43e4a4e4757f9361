// Elementwise ops with numpy broadcasting, and the ops fused after them.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "chain.h"
#include "cpu_op.h"
#include "eltwise.h"

namespace aoe::cpu {

class EltwiseOp final : public CpuOp {
 public:
  enum Knob : size_t { kIsa, kChunk, kStrategy, kThreads, kKnobCount };

  EltwiseOp(const sdk::OpTask& task, const HostCpu& host);

  ValueRange input_range(size_t i) const override { return ranges_[i]; }
  std::string check(const sdk::Config& config) const override;
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  friend class EltwiseKernel;
  Shape blocked_view(const Shape& operand, const Shape& out, bool blocked) const;
  const HostCpu& host_;
  Shape out_;
  int64_t rows_ = 1, cols_ = 1;
  std::vector<ChainStep> steps_;       // the first copies operand 0
  std::vector<size_t> operand_inputs_;
  std::vector<OperandLayout> layouts_;
  std::vector<ValueRange> ranges_;
};

}  // namespace aoe::cpu
