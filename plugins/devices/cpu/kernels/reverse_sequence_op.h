// ReverseSequence: along `time_axis`, the first sequence_lens[b] positions
// of each batch entry b (along `batch_axis`) reversed, the rest kept. The
// lengths are the model's constants, folded into attribute "sequence_lens".
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cpu_op.h"

namespace aoe::cpu {

class ReverseSequenceOp final : public CpuOp {
 public:
  enum Knob : size_t { kThreads, kKnobCount };

  ReverseSequenceOp(const sdk::OpTask& task, const HostCpu& host);
  std::string check(const sdk::Config& config) const override;
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  friend class ReverseSequenceKernel;
  size_t time_ = 0, batch_ = 1;
  std::vector<int64_t> lengths_;
};

}  // namespace aoe::cpu
