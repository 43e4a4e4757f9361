// MaxUnpool: the inverse of MaxPool with its Indices. Zeros but where an
// index puts an input value: Y.flat[I[i]] = X[i], in order (a repeated index
// keeps the last value), the indices flat over the pooling's inverse shape
// N x C x ((in - 1) * stride + kernel - pads). Where output_shape is given
// (the task's output; pads then count for nothing, as ONNX's reference has
// it) that shape's values are the top-left corner of a larger zero output.
// The indices are the task's `indices` attribute where the model holds them
// as a constant, else its second input at run time as whole-number floats;
// one out of range fails the run with its position.
#include "op_factories.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "held_dtype.h"
#include "op_util.h"
#include "threaded_op.h"

namespace aoe::cpu {
namespace {

class MaxUnpoolOp final : public ThreadedOp {
 public:
  MaxUnpoolOp(const sdk::OpTask& task, const HostCpu& host) : who_("MaxUnpool '" + task.name + "'") {
    if (!task.fused_ops.empty()) unsupported("the cpu device fuses no ops after MaxUnpool");
    require_inputs(task, 2, 3);
    require_dtype(task, 0, false, Takes::held);
    require_dtype(task, 1, false, Takes::integral);
    if (!task.outputs.empty()) require_dtype(task, 0, true, Takes::held);
    const Shape& x = task.inputs[0].shape;
    if (x.size() < 3 || x.size() > 5) unsupported("the cpu device runs " + who_ + " over 1 to 3 spatial dims, on N x C x spatial");
    if (task.inputs[1].shape != x)
      invalid(who_ + ": indices '" + task.inputs[1].name + "' are " + to_string(task.inputs[1].shape) + ", the input " + to_string(x));
    const size_t k = x.size() - 2;
    const auto kernel = ints_attr(task.attrs, "kernel_shape", {});
    const auto strides = ints_attr(task.attrs, "strides", std::vector<int64_t>(k, 1));
    const auto pads = ints_attr(task.attrs, "pads", std::vector<int64_t>(2 * k, 0));
    if (kernel.size() != k || strides.size() != k || pads.size() != 2 * k)
      invalid(who_ + " needs " + std::to_string(k) + " kernel_shape and strides and " + std::to_string(2 * k) + " pads");
    const bool sized = task.inputs.size() > 2;  // output_shape given: the pads count for nothing
    Shape inferred = {x[0], x[1]};
    for (size_t d = 0; d < k; ++d)
      inferred.push_back((x[d + 2] - 1) * strides[d] + kernel[d] - (sized ? 0 : pads[d] + pads[d + k]));
    for (auto d : inferred)
      if (d < 1) invalid(who_ + ": its kernel_shape, strides and pads give an output " + to_string(inferred) + " with an empty dim");
    // output_shape, a value known as the model runs, is what the task's output says.
    Shape out = inferred;
    if (sized) {
      if (task.outputs.empty() || !task.outputs[0].fully_known())
        unsupported(who_ + ": its output_shape is computed as the model runs; the cpu device needs the output's shape in the task");
      out = task.outputs[0].shape;
      bool fits = out.size() == x.size() && out[0] == x[0] && out[1] == x[1];
      for (size_t d = 2; d < out.size() && fits; ++d) fits = out[d] >= inferred[d];
      if (!fits)
        invalid(who_ + " output is " + to_string(out) + "; its input " + to_string(x) + " unpools to " + to_string(inferred) +
                ", which must fit in it with the same N and C");
    }
    require_output_shape(task, out);
    for (size_t d = 0; d < k; ++d) inferred_[3 - k + d] = inferred[d + 2], out_[3 - k + d] = out[d + 2];
    planes_ = x[0] * x[1];
    in_plane_ = elements(x) / planes_;
    out_plane_ = elements(out) / planes_;
    if (task.attrs.is_object() && task.attrs.contains("indices")) folded_ = folded_ints(task, 1, "indices");
    else if (task.inputs[1].constant)
      unsupported(who_ + ": its indices are a constant the frontend did not fold; the cpu device runs MaxUnpool on folded "
                  "constant indices or on indices computed as the model runs");
    set_shapes(task, {out}, host, static_cast<double>(elements(out)) * 0.25);
  }

  ValueRange input_range(size_t i) const override {
    if (i != 1) return {};
    return {0.0f, static_cast<float>(planes_ * inferred_[0] * inferred_[1] * inferred_[2] - 1)};
  }

  // Where every index lies in its own plane (as MaxPool gives them), a task per
  // plane: zeroed, then its values put in order. Else on one thread, in order.
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override {
    const auto at = positions(in[1]);
    bool planar = true;
    for (int64_t i = 0; i < planes_ * in_plane_ && planar; ++i) planar = at[static_cast<size_t>(i)] / out_plane_ == i / in_plane_;
    const float* x = in[0];
    float* y = out[0];
    if (!planar) {
      std::fill(y, y + planes_ * out_plane_, 0.0f);
      for (int64_t i = 0; i < planes_ * in_plane_; ++i) y[at[static_cast<size_t>(i)]] = x[i];
      return;
    }
    pool.run(planes_, threads, [&](int64_t p, int) {
      std::fill(y + p * out_plane_, y + (p + 1) * out_plane_, 0.0f);
      for (int64_t i = p * in_plane_; i < (p + 1) * in_plane_; ++i) y[at[static_cast<size_t>(i)]] = x[i];
    });
  }

  // As ONNX's reference: scattered into the unpooled shape, then that copied
  // into the output's corner, element by element.
  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    const int64_t n = planes_ * in_plane_, plane = inferred_[0] * inferred_[1] * inferred_[2];
    std::vector<double> unpooled(static_cast<size_t>(planes_ * plane), 0.0);
    for (int64_t i = 0; i < n; ++i) {
      const double v = folded_.empty() ? std::floor(static_cast<double>(in[1][i])) : static_cast<double>(folded_[static_cast<size_t>(i)]);
      if (!(v >= 0.0 && v < static_cast<double>(unpooled.size())))
        invalid(who_ + ": index " + std::to_string(v) + " at position " + std::to_string(i) + " is out of range");
      unpooled[static_cast<size_t>(v)] = in[0][i];
    }
    std::fill(out[0], out[0] + planes_ * out_plane_, 0.0f);
    for (int64_t p = 0; p < planes_; ++p)
      for (int64_t z = 0; z < inferred_[0]; ++z)
        for (int64_t y = 0; y < inferred_[1]; ++y)
          for (int64_t x = 0; x < inferred_[2]; ++x)
            out[0][p * out_plane_ + (z * out_[1] + y) * out_[2] + x] =
                static_cast<float>(unpooled[static_cast<size_t>(p * plane + (z * inferred_[1] + y) * inferred_[2] + x)]);
  }

 private:
  // Each input element's output position, checked against the output's size.
  std::vector<int64_t> positions(const float* given) const {
    const int64_t n = planes_ * in_plane_, plane = inferred_[0] * inferred_[1] * inferred_[2], limit = planes_ * plane;
    std::vector<int64_t> at(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      const double v = folded_.empty() ? std::floor(static_cast<double>(given[i])) : static_cast<double>(folded_[static_cast<size_t>(i)]);
      if (!(v >= 0.0 && v < static_cast<double>(limit)))
        invalid(who_ + ": index " + std::to_string(v) + " at position " + std::to_string(i) + " is out of range: the unpooled shape has " +
                std::to_string(limit) + " elements");
      // From the unpooled shape's place to the output's, which may be larger.
      const int64_t flat = static_cast<int64_t>(v), p = flat / plane, r = flat % plane;
      const int64_t z = r / (inferred_[1] * inferred_[2]), y = r / inferred_[2] % inferred_[1], x = r % inferred_[2];
      at[static_cast<size_t>(i)] = p * out_plane_ + (z * out_[1] + y) * out_[2] + x;
    }
    return at;
  }
  std::string who_;
  int64_t planes_ = 1, in_plane_ = 1, out_plane_ = 1;
  int64_t inferred_[3] = {1, 1, 1}, out_[3] = {1, 1, 1};  // spatial dims, right-aligned
  std::vector<int64_t> folded_;  // constant indices, or empty
};

}  // namespace

std::unique_ptr<CpuOp> make_max_unpool_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<MaxUnpoolOp>(task, host);
}

}  // namespace aoe::cpu
