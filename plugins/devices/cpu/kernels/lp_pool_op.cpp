// LpPool over 1 to 3 spatial dims (kernel_shape, strides, pads, auto_pad,
// dilations, ceil_mode) and GlobalLpPool over the whole map: each output
// (sum of |x|^p over its window)^(1/p), padding counting as zeros, as ONNX
// and ONNX Runtime define them. p is the attribute (2 by default).
#include "op_factories.h"

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "op_util.h"
#include "pool_op.h"
#include "threaded_op.h"

namespace aoe::cpu {
namespace {

class LpPoolOp final : public ThreadedOp {
 public:
  LpPoolOp(const sdk::OpTask& task, const HostCpu& host) {
    const std::string who = task.op_type + " '" + task.name + "'";
    require_plain(task, 1, 1);
    const Shape& x = task.inputs[0].shape;
    if (x.size() < 3) invalid(who + " takes N x C x spatial, got " + to_string(x));
    p_ = int_attr(task.attrs, "p", 2);
    if (p_ < 1) invalid(who + ": p must be at least 1, not " + std::to_string(p_));
    const Shape spatial(x.begin() + 2, x.end());
    if (task.op_type == "GlobalLpPool") {
      w_ = window_of(who, spatial, spatial, nlohmann::json::object(), false);
    } else {
      const auto kernel = ints_attr(task.attrs, "kernel_shape", {});
      w_ = window_of(who, spatial, kernel, task.attrs, int_attr(task.attrs, "ceil_mode", 0) != 0);
    }
    planes_ = x[0] * x[1];
    Shape out = {x[0], x[1]};
    for (size_t d = 3 - spatial.size(); d < 3; ++d) out.push_back(w_.out[d]);
    require_output_shape(task, out);
    const double window = static_cast<double>(w_.kernel[0] * w_.kernel[1] * w_.kernel[2]);
    set_shapes(task, {out}, host, static_cast<double>(elements(out)) * window);
  }

  // A task per plane, each output's window summed in float.
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override {
    const auto p = static_cast<float>(p_);
    pool.run(planes_, threads, [&](int64_t plane, int) {
      for_each_output<float>(
          plane, in[0], out[0], [&](float v) { return p_ == 1 ? std::abs(v) : p_ == 2 ? v * v : std::pow(std::abs(v), p); },
          [&](float sum) { return p_ == 1 ? sum : p_ == 2 ? std::sqrt(sum) : std::pow(sum, 1.0f / p); });
    });
  }

  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    const auto p = static_cast<double>(p_);
    for (int64_t plane = 0; plane < planes_; ++plane)
      for_each_output<double>(
          plane, in[0], out[0], [&](float v) { return std::pow(std::abs(static_cast<double>(v)), p); },
          [&](double sum) { return static_cast<float>(std::pow(sum, 1.0 / p)); });
  }

 private:
  // Each output of the plane: finish(the sum of term(x) over its window),
  // the padding left out (its terms are 0).
  template <typename Sum, typename Term, typename Finish>
  void for_each_output(int64_t plane, const float* x, float* y, Term term, Finish finish) const {
    const float* xp = x + plane * w_.in[0] * w_.in[1] * w_.in[2];
    float* yp = y + plane * w_.out[0] * w_.out[1] * w_.out[2];
    for (int64_t od = 0; od < w_.out[0]; ++od)
      for (int64_t oh = 0; oh < w_.out[1]; ++oh)
        for (int64_t ow = 0; ow < w_.out[2]; ++ow) {
          Sum sum = 0;
          for (int64_t kd = 0; kd < w_.kernel[0]; ++kd) {
            const int64_t d = od * w_.stride[0] - w_.pad_begin[0] + kd * w_.dilation[0];
            if (d < 0 || d >= w_.in[0]) continue;
            for (int64_t kh = 0; kh < w_.kernel[1]; ++kh) {
              const int64_t h = oh * w_.stride[1] - w_.pad_begin[1] + kh * w_.dilation[1];
              if (h < 0 || h >= w_.in[1]) continue;
              for (int64_t kw = 0; kw < w_.kernel[2]; ++kw) {
                const int64_t w = ow * w_.stride[2] - w_.pad_begin[2] + kw * w_.dilation[2];
                if (w >= 0 && w < w_.in[2]) sum += term(xp[(d * w_.in[1] + h) * w_.in[2] + w]);
              }
            }
          }
          *yp++ = finish(sum);
        }
  }

  Window3 w_;
  int64_t p_ = 2, planes_ = 1;
};

}  // namespace

std::unique_ptr<CpuOp> make_lp_pool_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<LpPoolOp>(task, host);
}

}  // namespace aoe::cpu
