// The attention core as one kernel: for each head (each index of the batch
// dims) and block of query rows, scores = Q K on one thread with the scale
// and mask applied as each tile is finished, a softmax over each row while
// the block is in cache, then context = probs V written straight to where
// the context goes. Q, K, V and the context are read and written through
// their views, so the head Transposes cost nothing.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "attention_pattern.h"
#include "chain.h"
#include "cpu_op.h"
#include "gemm.h"

namespace aoe::cpu {

class AttentionOp final : public CpuOp {
 public:
  enum Knob : size_t { kUKernel, kRows, kPackV, kThreads, kKnobCount };

  // Inputs: q, k and v's stored tensors, then each chain operand; output:
  // out's stored tensor. Throws sdk::Error(unsupported) for what it cannot run.
  AttentionOp(const AttentionPattern& pattern, const sdk::Graph& graph, const HostCpu& host);

  const AttentionPattern& pattern() const { return pattern_; }
  // The tensors it reads, in input order, and the one it writes.
  const std::vector<std::string>& reads() const { return reads_; }
  const std::string& writes() const { return pattern_.out.tensor; }

  std::string check(const sdk::Config& config) const override;
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  friend class AttentionKernel;
  sdk::Config default_config() const;

  const HostCpu& host_;
  AttentionPattern pattern_;
  std::vector<std::string> reads_;
  int64_t batches_ = 1, sq_ = 0, sk_ = 0, d_ = 0, dv_ = 0;
  // Per batch index: where its q, k, v and out start; then the two inner strides of each.
  std::vector<int64_t> q_at_, k_at_, v_at_, out_at_;
  StridedMatrix q_, k_, v_;  // data pointers unset
  int64_t out_row_ = 0;      // out's step between query rows (its cols are contiguous)
  std::vector<ChainStep> chain_;
  std::vector<OperandLayout> operand_layouts_;  // per chain operand, over the scores as rows x Sk
};

}  // namespace aoe::cpu
