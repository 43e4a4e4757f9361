// QuantizeLinear and DequantizeLinear, per tensor or per axis: y =
// saturate(round(x / scale) + zero_point) to the output's 8-bit integers
// (ties to even), and x = (q - zero_point) * scale; scale and zero point
// read as the model runs. Integers are held as whole-number floats
// (held_dtype.h).
#include "op_factories.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "cpu_op.h"
#include "held_dtype.h"
#include "op_util.h"
#include "quantized.h"
#include "threads_kernel.h"

namespace aoe::cpu {
namespace {

class QuantizeOp final : public CpuOp {
 public:
  enum Knob : size_t { kThreads, kKnobCount };

  QuantizeOp(const sdk::OpTask& task, const HostCpu& host) {
    const std::string who = task.op_type + " '" + task.name + "'";
    require_plain(task, 2, 3, {}, Takes::held);
    quantize_ = task.op_type == "QuantizeLinear";
    const sdk::DType q = quantize_ ? task.outputs.at(0).dtype : task.inputs[0].dtype;
    const QuantRange range = quantized_range(q, who, quantize_ ? "its output" : "its input");
    lo_ = range.lo, hi_ = range.hi;
    if (task.attrs.contains("block_size") && int_attr(task.attrs, "block_size", 0) != 0)
      unsupported("the cpu device runs " + task.op_type + " per tensor and per axis, not blocked");
    const Shape in = task.inputs[0].shape;
    const int64_t scales = elements(task.inputs[1].shape);
    if (scales > 1) {
      if (task.inputs[1].shape.size() != 1) invalid(who + ": a per-axis scale is 1-D");
      const auto axis = static_cast<size_t>(normalize_axis(int_attr(task.attrs, "axis", 1), static_cast<int64_t>(in.size()), who));
      if (in[axis] != scales) invalid(who + ": " + std::to_string(scales) + " scales for an axis of " + std::to_string(in[axis]));
      channels_ = scales;
      inner_ = dims_product(in, axis + 1, in.size());
    } else {
      inner_ = std::max<int64_t>(1, elements(in));
    }
    if (task.inputs.size() > 2 && elements(task.inputs[2].shape) != scales)
      invalid(who + ": the zero point has another shape than the scale");
    for (const auto& t : task.inputs) inputs_.push_back(t.shape);
    outputs_ = {in};
    require_output_shape(task, in);
    space_ = threads_space(host, static_cast<double>(elements(in)));
  }

  ValueRange input_range(size_t i) const override {
    if (i == 1) return {0.01f, 0.1f};
    if (i == 2) return {static_cast<float>(lo_ / 4 + hi_ / 4), static_cast<float>(lo_ / 4 + hi_ / 4)};
    return quantize_ ? ValueRange{} : ValueRange{static_cast<float>(lo_), static_cast<float>(hi_)};
  }

  std::string check(const sdk::Config&) const override { return {}; }
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;

  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    const int64_t total = elements(outputs_[0]);
    for (int64_t i = 0; i < total; ++i) {
      const int64_t c = (i / inner_) % channels_;
      const double s = in[1][c], z = in.size() > 2 && in[2] ? in[2][c] : 0.0;
      const double v = quantize_ ? std::clamp(std::nearbyint(in[0][i] / s) + z, lo_, hi_) : (in[0][i] - z) * s;
      out[0][i] = static_cast<float>(v);
    }
  }

 private:
  friend class QuantizeKernel;
  bool quantize_ = true;
  double lo_ = 0, hi_ = 255;          // the quantized dtype's range
  int64_t channels_ = 1, inner_ = 1;  // per axis: the axis's extent, the elements after it
};

class QuantizeKernel final : public ThreadsKernel<QuantizeOp> {
 public:
  using ThreadsKernel::ThreadsKernel;

  // Chunks of whole runs of one channel's elements.
  void run(ThreadPool& pool) override {
    const int64_t total = outputs_[0].size(), inner = op_.inner_, channels = op_.channels_;
    if (total == 0) return;
    const float* x = inputs_[0];
    const float* scale = inputs_[1];
    const float* zero = inputs_.size() > 2 ? inputs_[2] : nullptr;
    const auto lo = static_cast<float>(op_.lo_), hi = static_cast<float>(op_.hi_);
    float* y = outputs_[0].data();
    const bool quantize = op_.quantize_;
    pool.run(total / inner, threads_, [&](int64_t run, int) {
      const int64_t c = run % channels;
      const float s = scale[c], z = zero ? zero[c] : 0.0f;
      const float* src = x + run * inner;
      float* dst = y + run * inner;
      if (quantize)
        for (int64_t i = 0; i < inner; ++i) dst[i] = std::clamp(std::nearbyint(src[i] / s) + z, lo, hi);
      else
        for (int64_t i = 0; i < inner; ++i) dst[i] = (src[i] - z) * s;
    });
  }
};

std::unique_ptr<Kernel> QuantizeOp::build(const sdk::Config& c) const { return threads_kernel<QuantizeKernel>(*this, c); }

}  // namespace

std::unique_ptr<CpuOp> make_quantize_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<QuantizeOp>(task, host);
}

}  // namespace aoe::cpu
