// ArgMax and ArgMin (any axis, keepdims, select_last_index): the int64
// index of the largest or smallest value along the axis, held as a float
// (held_dtype.h). The input may be of any dtype the device holds.
#include "op_factories.h"

#include <memory>
#include <string>
#include <vector>

#include "held_dtype.h"
#include "op_util.h"
#include "threaded_op.h"

namespace aoe::cpu {
namespace {

// One outer slice: its rows along the axis read in runs of inner values.
template <bool Max>
void arg_slice(const float* src, float* y, int64_t extent, int64_t inner, bool last) {
  for (int64_t i = 0; i < inner; ++i) {
    int64_t best = 0;
    for (int64_t k = 1; k < extent; ++k) {
      const float v = src[k * inner + i], b = src[best * inner + i];
      const bool better = Max ? (v > b || (last && v == b)) : (v < b || (last && v == b));
      if (better) best = k;
    }
    y[i] = static_cast<float>(best);
  }
}

class ArgReduceOp final : public ThreadedOp {
 public:
  ArgReduceOp(const sdk::OpTask& task, const HostCpu& host) {
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
    require_output_shape(task, out);
    set_shapes(task, {out}, host, static_cast<double>(elements(in)));
  }

  // A task per outer slice.
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override {
    if (elements(output_shapes()[0]) == 0) return;
    pool.run(outer_, threads, [&](int64_t o, int) {
      const float* src = in[0] + o * extent_ * inner_;
      float* y = out[0] + o * inner_;
      if (max_) arg_slice<true>(src, y, extent_, inner_, last_);
      else arg_slice<false>(src, y, extent_, inner_, last_);
    });
  }

  // Per row along the axis, in double: the first (or last) index of its extreme value.
  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
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

 private:
  bool max_ = true, last_ = false;
  int64_t outer_ = 1, extent_ = 1, inner_ = 1;
};

}  // namespace

std::unique_ptr<CpuOp> make_arg_reduce_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<ArgReduceOp>(task, host);
}

}  // namespace aoe::cpu
