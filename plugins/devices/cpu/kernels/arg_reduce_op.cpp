#include "arg_reduce_op.h"

#include "buffer_kernel.h"
#include "held_dtype.h"
#include "op_util.h"

namespace aoe::cpu {

class ArgReduceKernel final : public BufferKernel {
 public:
  ArgReduceKernel(const ArgReduceOp& op, int threads) : BufferKernel(op), op_(op), threads_(threads) {}

  void run(ThreadPool& pool) override {
    if (op_.max_) run_as<true>(pool);
    else run_as<false>(pool);
  }

 private:
  // A task per outer slice; its rows along the axis read in runs of inner values.
  template <bool Max>
  void run_as(ThreadPool& pool) {
    const int64_t extent = op_.extent_, inner = op_.inner_;
    if (elements(op_.output_shapes()[0]) == 0) return;
    const bool last = op_.last_;
    const float* x = inputs_[0];
    float* y = outputs_[0].data();
    pool.run(op_.outer_, threads_, [&](int64_t o, int) {
      const float* src = x + o * extent * inner;
      for (int64_t i = 0; i < inner; ++i) {
        int64_t best = 0;
        for (int64_t k = 1; k < extent; ++k) {
          const float v = src[k * inner + i], b = src[best * inner + i];
          const bool better = Max ? (v > b || (last && v == b)) : (v < b || (last && v == b));
          if (better) best = k;
        }
        y[o * inner + i] = static_cast<float>(best);
      }
    });
  }

  const ArgReduceOp& op_;
  int threads_;
};

ArgReduceOp::ArgReduceOp(const sdk::OpTask& task, const HostCpu& host) {
  const std::string who = task.op_type + " '" + task.name + "'";
  if (!task.fused_ops.empty()) unsupported("the cpu device fuses no ops after " + task.op_type);
  require_inputs(task, 1, 1);
  require_dtype(task, 0, false, Takes::held);
  require_dtype(task, 0, true, Takes::integral);
  max_ = task.op_type == "ArgMax";
  last_ = int_attr(task.attrs, "select_last_index", 0) != 0;
  const Shape in = task.inputs[0].shape;
  if (in.empty()) invalid(who + " takes a tensor of rank 1 or more");
  const auto axis = static_cast<size_t>(normalize_axis(int_attr(task.attrs, "axis", 0), static_cast<int64_t>(in.size()), who));
  outer_ = dims_product(in, 0, axis);
  extent_ = in[axis];
  inner_ = dims_product(in, axis + 1, in.size());
  if (extent_ == 0) invalid(who + ": the axis has no values to choose from");
  Shape out = in;
  if (int_attr(task.attrs, "keepdims", 1) != 0) out[axis] = 1;
  else out.erase(out.begin() + static_cast<std::ptrdiff_t>(axis));
  inputs_ = {in};
  outputs_ = {out};
  require_output_shape(task, out);
  space_ = threads_space(host, static_cast<double>(elements(in)));
}

std::string ArgReduceOp::check(const sdk::Config&) const { return {}; }

std::unique_ptr<Kernel> ArgReduceOp::build(const sdk::Config& c) const {
  return std::make_unique<ArgReduceKernel>(*this, static_cast<int>(c[kThreads]));
}

// Per row along the axis, in double: the first (or last) index of its extreme value.
void ArgReduceOp::reference(const std::vector<const float*>& in, const std::vector<float*>& out) const {
  for (int64_t o = 0; o < outer_; ++o)
    for (int64_t i = 0; i < inner_; ++i) {
      double best = in[0][o * extent_ * inner_ + i];
      int64_t at = 0;
      for (int64_t k = 0; k < extent_; ++k) {
        const double v = in[0][(o * extent_ + k) * inner_ + i];
        if (v == best && last_) at = k;
        if (max_ ? v > best : v < best) best = v, at = k;
      }
      out[0][o * inner_ + i] = static_cast<float>(at);
    }
}

}  // namespace aoe::cpu
