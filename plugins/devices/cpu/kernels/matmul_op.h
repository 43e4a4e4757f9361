// MatMul (numpy semantics, batched and broadcast), BatchMatMul (MatMul's,
// with adj_x1 and adj_x2 transposing a's and b's last two dims) and Gemm
// (transA, transB, alpha, beta * C) as GEMM calls, with bias and fused ops
// in the epilogue.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "chain.h"
#include "cpu_op.h"
#include "gemm.h"

namespace aoe::cpu {

// Whose product a config runs: the device's GEMM, OpenBLAS's or oneDNN's.
enum class MatMulImpl { own, openblas, onednn };

class MatMulOp final : public CpuOp {
 public:
  enum Knob : size_t { kUKernel, kMc, kKc, kNc, kOrder, kSplit, kThreads, kChunks, kPackB, kKnobCount };

  MatMulOp(const sdk::OpTask& task, const HostCpu& host);

  std::string check(const sdk::Config& config) const override;
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

  // The GEMM blocking a config stands for.
  GemmConfig gemm_config(const sdk::Config& config) const;
  int64_t m() const { return m_; }
  int64_t n() const { return n_; }
  int64_t k() const { return k_; }
  int64_t batches() const { return static_cast<int64_t>(a_offset_.size()); }

 private:
  friend class MatMulKernel;
  sdk::Config default_config(const HostCpu& host) const;
  // Whether oneDNN has more than its reference matmul for this product in
  // parts for `threads` threads: asked of oneDNN once per thread count.
  bool onednn_compiles(int threads) const;

  const HostCpu& host_;
  bool gemm_ = false;
  int64_t m_ = 0, n_ = 0, k_ = 0;  // of one GEMM call (m includes folded batches)
  std::vector<int64_t> a_offset_, b_offset_;
  StridedMatrix a_layout_, b_layout_;  // data pointers unset
  bool b_constant_ = false;
  // Reference view: A and B as [batch.., M, K] and [batch.., K, N] index maps.
  Shape out_full_;  // batch dims + [M, N] of the whole op
  bool trans_a_ = false, trans_b_ = false;
  std::vector<ChainStep> epilogue_;
  std::vector<size_t> operand_inputs_;
  std::vector<Shape> operand_shapes_;  // against out_full_
  std::vector<OperandLayout> operand_layouts_;
  mutable std::mutex onednn_mutex_;
  mutable std::map<int, bool> onednn_compiles_;
};

}  // namespace aoe::cpu
