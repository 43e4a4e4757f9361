// OneHot: `values` [off, on] everywhere, on where the axis inserted at
// `axis` reaches its index (negative ones count from the end of depth).
// Integer indices are the model's constants, folded into attribute
// "indices"; float ones may be fed at run time (cast to integers, as ONNX
// does). The depth is the output's extent along the axis.
#include "op_factories.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "op_util.h"
#include "reference.h"
#include "threaded_op.h"

namespace aoe::cpu {
namespace {

class OneHotOp final : public ThreadedOp {
 public:
  OneHotOp(const sdk::OpTask& task, const HostCpu& host) {
    const std::string who = "OneHot '" + task.name + "'";
    require_plain(task, 3, 3, {0, 1}, Takes::held);
    constant_ = task.inputs[0].dtype != sdk::DType::f32;
    const Shape indices = task.inputs[0].shape;
    if (elements(task.inputs[2].shape) != 2) invalid(who + ": values must be [off, on]");
    if (task.outputs.empty() || !task.outputs[0].fully_known() || task.outputs[0].shape.size() != indices.size() + 1)
      unsupported(who + ": the cpu device takes its depth from its output's shape, which the task does not give");
    const Shape out = task.outputs[0].shape;
    const auto axis = static_cast<size_t>(normalize_axis(int_attr(task.attrs, "axis", -1), static_cast<int64_t>(out.size()), who));
    depth_ = out[axis];
    outer_ = dims_product(indices, 0, axis);
    inner_ = dims_product(indices, axis, indices.size());
    for (size_t d = 0; d < indices.size(); ++d)
      if (out[d < axis ? d : d + 1] != indices[d]) invalid(who + ": output " + to_string(out) + " for indices " + to_string(indices));
    if (constant_)
      for (int64_t i : folded_ints(task, 0, "indices")) hot_.push_back(position(static_cast<double>(i)));
    for (const auto& t : task.inputs) inputs_.push_back(t.shape);
    outputs_ = {out};
    space_ = threads_space(host, static_cast<double>(elements(out)) * 0.25);
  }

  // Per outer slice: all off, then each of its inner positions on at its index.
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override {
    const float off = in[2][0], on = in[2][1];
    const int64_t depth = depth_, inner = inner_;
    float* y = out[0];
    const float* fed = constant_ ? nullptr : in[0];
    pool.run(outer_, threads, [&](int64_t o, int) {
      float* dst = y + o * depth * inner;
      std::fill(dst, dst + depth * inner, off);
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t at = o * inner + i;
        const int64_t h = fed ? position(fed[at]) : hot_[static_cast<size_t>(at)];
        if (h >= 0) dst[h * inner + i] = on;
      }
    });
  }

  // Each output element: on where its coordinate on the axis is its index's.
  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    for (int64_t o = 0; o < outer_; ++o)
      for (int64_t d = 0; d < depth_; ++d)
        for (int64_t i = 0; i < inner_; ++i) {
          const auto at = static_cast<size_t>(o * inner_ + i);
          double index = constant_ ? static_cast<double>(hot_[at]) : std::trunc(static_cast<double>(in[0][at]));
          if (!constant_ && index < 0) index += static_cast<double>(depth_);
          out[0][(o * depth_ + d) * inner_ + i] = index == static_cast<double>(d) ? in[2][1] : in[2][0];
        }
  }

 private:
  int64_t outer_ = 1, depth_ = 0, inner_ = 1;

  int64_t position(double index) const {
    if (!(std::fabs(index) < static_cast<double>(depth_) + 1)) return -1;  // NaN too
    auto i = static_cast<int64_t>(index);  // toward zero, as a cast to int64
    if (i < 0) i += depth_;
    return i >= 0 && i < depth_ ? i : -1;
  }
  bool constant_ = false;
  std::vector<int64_t> hot_;  // per constant index: its position
};

}  // namespace

std::unique_ptr<CpuOp> make_one_hot_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<OneHotOp>(task, host);
}

}  // namespace aoe::cpu
