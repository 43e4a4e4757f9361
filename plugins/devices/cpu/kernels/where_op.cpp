#include "where_op.h"

#include "buffer_kernel.h"
#include "held_dtype.h"
#include "op_util.h"
#include "reference.h"

namespace aoe::cpu {

class WhereKernel final : public BufferKernel {
 public:
  WhereKernel(const WhereOp& op, int threads) : BufferKernel(op), op_(op), threads_(threads) {
    for (const auto& s : op.aligned_) strides_.push_back(strides_of(s));
  }

  // Output rows (its last axis) in parallel; each operand's row from its
  // multi-index, walked with stride 0 where it broadcasts along the row.
  void run(ThreadPool& pool) override {
    const Shape& out = op_.output_shapes()[0];
    const int64_t total = elements(out);
    if (total == 0) return;
    const size_t rank = out.size();
    const int64_t cols = rank ? out[rank - 1] : 1;
    const float* src[3] = {op_.condition_.empty() ? inputs_[0] : op_.condition_.data(), inputs_[1], inputs_[2]};
    float* y = outputs_[0].data();
    pool.run(total / cols, threads_, [&](int64_t r, int) {
      int64_t offset[3] = {0, 0, 0}, step[3] = {0, 0, 0};
      for (size_t k = 0; k < 3; ++k) {
        int64_t rest = r;
        for (size_t a = rank - 1; rank && a-- > 0;) {
          const int64_t i = rest % out[a];
          rest /= out[a];
          if (op_.aligned_[k][a] != 1) offset[k] += i * strides_[k][a];
        }
        step[k] = rank && op_.aligned_[k][rank - 1] != 1 ? 1 : 0;
      }
      float* dst = y + r * cols;
      for (int64_t c = 0; c < cols; ++c)
        dst[c] = src[0][offset[0] + c * step[0]] != 0.0f ? src[1][offset[1] + c * step[1]] : src[2][offset[2] + c * step[2]];
    });
  }

 private:
  const WhereOp& op_;
  int threads_;
  std::vector<std::vector<int64_t>> strides_;
};

WhereOp::WhereOp(const sdk::OpTask& task, const HostCpu& host) {
  const std::string who = "Where '" + task.name + "'";
  if (!task.fused_ops.empty()) unsupported("the cpu device fuses no ops after Where");
  require_inputs(task, 3, 3);
  require_dtype(task, 0, false, Takes::integral);
  require_dtypes(task, Takes::held, {0});
  require_same_dtype(task, {1, 2});
  // A constant condition the frontend folded; else read as the model runs.
  if (task.attrs.is_object() && task.attrs.contains("condition"))
    for (const auto v : folded_ints(task, 0, "condition")) condition_.push_back(v != 0 ? 1.0f : 0.0f);
  for (const auto& t : task.inputs) inputs_.push_back(t.shape);
  const Shape out = broadcast(inputs_, who);
  for (const auto& s : inputs_) aligned_.push_back(align_rank(s, out.size()));
  outputs_ = {out};
  require_output_shape(task, out);
  space_ = threads_space(host, static_cast<double>(elements(out)) * 0.5);
}

std::string WhereOp::check(const sdk::Config&) const { return {}; }

std::unique_ptr<Kernel> WhereOp::build(const sdk::Config& c) const {
  return std::make_unique<WhereKernel>(*this, static_cast<int>(c[kThreads]));
}

void WhereOp::reference(const std::vector<const float*>& in, const std::vector<float*>& out) const {
  const Shape& o = outputs_[0];
  if (elements(o) == 0) return;
  std::vector<int64_t> index(o.size(), 0);
  size_t flat = 0;
  do {
    const bool c = at_broadcast(condition_.empty() ? in[0] : condition_.data(), inputs_[0], o, index) != 0.0;
    out[0][flat++] = static_cast<float>(at_broadcast(c ? in[1] : in[2], inputs_[c ? 1 : 2], o, index));
  } while (next_index(index, o));
}

}  // namespace aoe::cpu
