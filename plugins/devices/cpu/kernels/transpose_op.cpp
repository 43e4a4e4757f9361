#include "transpose_op.h"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "buffer_kernel.h"
#include "op_util.h"
#include "reference.h"

namespace aoe::cpu {

class TransposeKernel final : public BufferKernel {
 public:
  TransposeKernel(const TransposeOp& op, int64_t tile, int threads) : BufferKernel(op), op_(op), tile_(tile), threads_(threads) {
    const Shape& in = op.dims_;
    const auto& perm = op.merged_;
    rank_ = in.size();
    in_strides_ = strides_of(in);
    Shape out(rank_);
    for (size_t q = 0; q < rank_; ++q) out[q] = in[static_cast<size_t>(perm[q])];
    out_strides_ = strides_of(out);
    // Output position of each input dim.
    out_pos_.resize(rank_);
    for (size_t q = 0; q < rank_; ++q) out_pos_[static_cast<size_t>(perm[q])] = q;
    a_ = rank_ - 1;                                    // the input's last dim
    b_ = rank_ ? static_cast<size_t>(perm[rank_ - 1]) : 0;  // the output's last dim, in input terms
    for (size_t d = 0; d < rank_; ++d)
      if (d != a_ && d != b_) others_.push_back(d);
  }

  void run(ThreadPool& pool) override {
    const float* x = inputs_[0];
    float* y = outputs_[0].data();
    if (elements(op_.dims_) == 0) return;  // rows of no values: nothing to move (and no row length to divide by)
    if (rank_ <= 1 || a_ == b_) {
      copy_rows(x, y, pool);
      return;
    }
    const int64_t A = op_.dims_[a_], B = op_.dims_[b_];
    const int64_t outer = other_count();
    // Strips of tile_ x tile_ values at least: where the input's rows are
    // short (an NHWC image's 3 channels), a strip of tile_ columns would
    // move a few dozen values a task.
    const int64_t width = A < tile_ ? tile_ * ((tile_ + A - 1) / A) : tile_;
    const int64_t strips = (B + width - 1) / width;
    const int64_t in_b = in_strides_[b_], out_a = out_strides_[out_pos_[a_]];
    pool.run(outer * strips, threads_, [&](int64_t task, int) {
      const int64_t o = task / strips, b0 = (task % strips) * width, b1 = std::min(B, b0 + width);
      int64_t in_base, out_base;
      bases(o, in_base, out_base);
      const float* src = x + in_base;
      float* dst = y + out_base;
      if (tile_ == 1) {
        // Output order: writes in runs, reads strided.
        for (int64_t a = 0; a < A; ++a)
          for (int64_t b = b0; b < b1; ++b) dst[a * out_a + b] = src[b * in_b + a];
        return;
      }
      for (int64_t a0 = 0; a0 < A; a0 += tile_) {
        const int64_t a1 = std::min(A, a0 + tile_);
        for (int64_t a = a0; a < a1; ++a)
          for (int64_t b = b0; b < b1; ++b) dst[a * out_a + b] = src[b * in_b + a];
      }
    });
  }

 private:
  int64_t other_count() const {
    int64_t n = 1;
    for (size_t d : others_) n *= op_.dims_[d];
    return n;
  }
  // Input and output offsets of the o-th combination of the other dims.
  void bases(int64_t o, int64_t& in_base, int64_t& out_base) const {
    in_base = out_base = 0;
    for (size_t i = others_.size(); i-- > 0;) {
      const size_t d = others_[i];
      const int64_t v = o % op_.dims_[d];
      o /= op_.dims_[d];
      in_base += v * in_strides_[d];
      out_base += v * out_strides_[out_pos_[d]];
    }
  }
  void copy_rows(const float* x, float* y, ThreadPool& pool) {
    const int64_t row = rank_ ? op_.dims_[rank_ - 1] : 1;
    const int64_t rows = elements(op_.dims_) / row;
    pool.run(rows, threads_, [&](int64_t r, int) {
      // r indexes output rows; find the input row.
      int64_t in_off = 0, rest = r;
      for (size_t q = rank_ - 1; q-- > 0;) {
        const size_t d = static_cast<size_t>(op_.merged_[q]);
        const int64_t v = rest % op_.dims_[d];
        rest /= op_.dims_[d];
        in_off += v * in_strides_[d];
      }
      std::memcpy(y + r * row, x + in_off, static_cast<size_t>(row) * sizeof(float));
    });
  }

  const TransposeOp& op_;
  int64_t tile_;
  int threads_;
  size_t rank_ = 0, a_ = 0, b_ = 0;
  std::vector<int64_t> in_strides_, out_strides_;
  std::vector<size_t> out_pos_, others_;
};

TransposeOp::TransposeOp(const sdk::OpTask& task, const HostCpu& host) {
  require_plain(task, 1, 1, {}, Takes::held);
  const Shape in = task.inputs[0].shape;
  inputs_ = {in};
  const auto rank = static_cast<int64_t>(in.size());
  std::vector<int64_t> reversed(in.size());
  std::iota(reversed.rbegin(), reversed.rend(), 0);
  perm_ = ints_attr(task.attrs, "perm", reversed);
  std::vector<bool> seen(in.size(), false);
  if (static_cast<int64_t>(perm_.size()) != rank) invalid("Transpose perm must list every axis once");
  for (auto& p : perm_) {
    p = normalize_axis(p, rank, "Transpose perm");
    if (seen[static_cast<size_t>(p)]) invalid("Transpose perm must list every axis once");
    seen[static_cast<size_t>(p)] = true;
  }
  Shape out;
  for (auto p : perm_) out.push_back(in[static_cast<size_t>(p)]);
  outputs_ = {out};
  if (!task.outputs.empty() && task.outputs[0].shape != out)
    invalid("Transpose output is " + to_string(task.outputs[0].shape) + ", expected " + to_string(out));

  // Drop extent-1 dims, then merge input dims that stay adjacent in the output.
  std::vector<int64_t> kept_perm;
  std::vector<int64_t> new_index(in.size(), -1);
  int64_t next = 0;
  for (size_t d = 0; d < in.size(); ++d)
    if (in[d] != 1) new_index[d] = next++;
  for (auto p : perm_)
    if (new_index[static_cast<size_t>(p)] >= 0) kept_perm.push_back(new_index[static_cast<size_t>(p)]);
  Shape kept_dims;
  for (auto d : in)
    if (d != 1) kept_dims.push_back(d);
  // Groups: runs of consecutive input dims in output order.
  std::vector<std::vector<int64_t>> groups;
  for (auto p : kept_perm) {
    if (!groups.empty() && groups.back().back() + 1 == p) groups.back().push_back(p);
    else groups.push_back({p});
  }
  std::vector<size_t> order(groups.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t x, size_t y) { return groups[x].front() < groups[y].front(); });
  std::vector<int64_t> group_rank(groups.size());
  for (size_t i = 0; i < order.size(); ++i) group_rank[order[i]] = static_cast<int64_t>(i);
  dims_.assign(groups.size(), 1);
  for (size_t g = 0; g < groups.size(); ++g)
    for (auto d : groups[g]) dims_[static_cast<size_t>(group_rank[g])] *= kept_dims[static_cast<size_t>(d)];
  for (size_t g = 0; g < groups.size(); ++g) merged_.push_back(group_rank[g]);
  if (dims_.empty()) {
    dims_ = {1};
    merged_ = {0};
  }

  space_.version = "1";
  space_.knobs.resize(kKnobCount);
  space_.knobs[kTile] = sdk::Knob{"tile", sdk::KnobTag::schedule, sdk::DomainKind::integer, {1, 4, 8, 16, 32, 64}, {}};
  space_.knobs[kThreads] = threads_knob(host);
  space_.default_config = {16, default_threads(host, static_cast<double>(elements(in)) * 1.0)};
}

std::string TransposeOp::check(const sdk::Config&) const { return {}; }

std::unique_ptr<Kernel> TransposeOp::build(const sdk::Config& c) const {
  return std::make_unique<TransposeKernel>(*this, c[kTile], static_cast<int>(c[kThreads]));
}

void TransposeOp::reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const {
  const Shape& in = inputs_[0];
  const Shape& out = outputs_[0];
  const auto in_strides = strides_of(in);
  for_each_index(out, [&](const std::vector<int64_t>& index, int64_t flat) {
    int64_t at = 0;
    for (size_t q = 0; q < out.size(); ++q) at += index[q] * in_strides[static_cast<size_t>(perm_[q])];
    outputs[0][flat] = inputs[0][at];
  });
}

}  // namespace aoe::cpu
