// ReverseSequence: along `time_axis`, the first sequence_lens[b] positions
// of each batch entry b (along `batch_axis`) reversed, the rest kept. The
// lengths are the model's constants, folded into attribute "sequence_lens".
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "threaded_op.h"

namespace aoe::cpu {

class ReverseSequenceOp final : public ThreadedOp {
 public:
  ReverseSequenceOp(const sdk::OpTask& task, const HostCpu& host);
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  size_t time_ = 0, batch_ = 1;
  std::vector<int64_t> lengths_;
  int64_t inner_ = 1;  // the elements of a row of the axes after both
  Shape lead_;         // the axes up to the later of the two
};

}  // namespace aoe::cpu
