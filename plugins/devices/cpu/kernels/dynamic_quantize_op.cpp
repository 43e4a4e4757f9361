// DynamicQuantizeLinear: x to uint8 with the scale and zero point its own
// range gives (the range widened to hold 0): y_scale = (max - min) / 255,
// y_zero_point = saturate(round(-min / y_scale)), y = saturate(round(x /
// y_scale) + y_zero_point), rounding half to even, in float32 as the
// definition's tensors are. An all-zero x gives scale 0, zero point 0, y 0.
#include "op_factories.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "op_util.h"
#include "quantized.h"
#include "threaded_op.h"

namespace aoe::cpu {
namespace {

// The scale and zero point of a range [lo, hi] holding 0, as float32 gives them.
struct Quantization {
  float scale = 0, zero = 0;
};
Quantization quantization_of(float lo, float hi) {
  const float scale = (hi - lo) / 255.0f;
  if (scale == 0) return {};
  return {scale, static_cast<float>(std::clamp(std::nearbyint(-lo / scale), 0.0f, 255.0f))};
}

class DynamicQuantizeOp final : public ThreadedOp {
 public:
  DynamicQuantizeOp(const sdk::OpTask& task, const HostCpu& host) {
    const std::string who = "DynamicQuantizeLinear '" + task.name + "'";
    require_plain(task, 1, 1, {}, Takes::held);
    require_dtype(task, 0, false, Takes::f32);
    require_dtype(task, 1, true, Takes::f32);
    for (size_t o : {size_t{0}, size_t{2}})
      if (o < task.outputs.size() && task.outputs[o].dtype != sdk::DType::undefined && task.outputs[o].dtype != sdk::DType::u8)
        unsupported(who + ": output '" + task.outputs[o].name + "' is " + sdk::to_string(task.outputs[o].dtype) + "; it is uint8");
    const Shape& x = task.inputs[0].shape;
    count_ = elements(x);
    set_shapes(task, {x, Shape{}, Shape{}}, host, static_cast<double>(count_) * 2);
  }
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override;

  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    float lo = 0, hi = 0;
    for (int64_t i = 0; i < count_; ++i) lo = std::min(lo, in[0][i]), hi = std::max(hi, in[0][i]);
    // float32 arithmetic, as the definition's tensors are.
    const float scale = (hi - lo) / 255.0f;
    const double zero = scale == 0 ? 0 : std::clamp(std::nearbyint(static_cast<double>(-lo / scale)), 0.0, 255.0);
    out[1][0] = scale;
    out[2][0] = static_cast<float>(zero);
    for (int64_t i = 0; i < count_; ++i) {
      const float ratio = scale == 0 ? 0.0f : in[0][i] / scale;  // the quotient as float32 holds it
      out[0][i] = static_cast<float>(std::clamp(std::nearbyint(static_cast<double>(ratio)) + zero, 0.0, 255.0));
    }
  }

 private:
  int64_t count_ = 0;
};

// The range in one pass, then the elements shared out.
void DynamicQuantizeOp::compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
                                int threads) const {
  const float* x = in[0];
  float lo = 0, hi = 0;
  for (int64_t i = 0; i < count_; ++i) lo = std::min(lo, x[i]), hi = std::max(hi, x[i]);
  const Quantization q = quantization_of(lo, hi);
  out[1][0] = q.scale;
  out[2][0] = q.zero;
  const QuantRange range{0, 255};
  parallel_runs(pool, threads, count_, 16384, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) out[0][i] = q.scale == 0 ? 0.0f : requantized(x[i] / q.scale, q.zero, range);
  });
}

}  // namespace

std::unique_ptr<CpuOp> make_dynamic_quantize_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<DynamicQuantizeOp>(task, host);
}

}  // namespace aoe::cpu
