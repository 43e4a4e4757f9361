// Gradients of pooling (docs/training.md): MaxPoolGradWithArgmax adds each
// window's dy to the x it took the max from (the first, on ties), and
// GlobalAveragePoolGrad spreads dy / (H · W) over the map.
#include "op_factories.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "op_util.h"
#include "pool_op.h"
#include "step_op.h"

namespace aoe::cpu {
namespace {

class MaxPoolGradOp final : public ThreadedOp {
 public:
  MaxPoolGradOp(const sdk::OpTask& task, const HostCpu& host) {
    const StepTask t(task, {"x", "dy"});
    t.rank(0, 3, true);
    const Shape& x = t.shape(0);
    if (x.size() > 5) unsupported("the cpu device runs " + t.who() + " over 1 to 3 spatial dims");
    const Shape spatial(x.begin() + 2, x.end());
    const auto kernel = t.ints("kernel_shape");
    if (kernel.size() != spatial.size())
      t.fail("kernel_shape gives " + std::to_string(kernel.size()) + " dims for " + std::to_string(spatial.size()) +
             " spatial dims of " + t.tensor(0) + " " + to_string(x));
    nlohmann::json attrs = task.attrs;
    if (attrs.is_object()) attrs.erase("dilations");  // the forward MaxPool's windows are dense
    w_ = window_of(t.who(), spatial, kernel, attrs, false);
    Shape dy = {x[0], x[1]};
    for (size_t a = 0; a < spatial.size(); ++a) dy.push_back(w_.out[3 - spatial.size() + a]);
    t.expect(1, dy, "the forward MaxPool's output");
    planes_ = x[0] * x[1];
    t.outputs({"dx"}, {x});
    set_shapes(task, {x}, host, static_cast<double>(elements(dy) * elements(Shape(kernel.begin(), kernel.end()))));
  }

  // One plane per task: dx zeroed, then each window's dy added at its argmax.
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override {
    const Window3& w = w_;
    const int64_t plane = w.in[0] * w.in[1] * w.in[2], out_plane = w.out[0] * w.out[1] * w.out[2];
    pool.run(planes_, threads, [&](int64_t p, int) {
      const float* x = in[0] + p * plane;
      const float* dy = in[1] + p * out_plane;
      float* dx = out[0] + p * plane;
      std::fill(dx, dx + plane, 0.0f);
      int64_t o = 0;
      for (int64_t od = 0; od < w.out[0]; ++od)
        for (int64_t oh = 0; oh < w.out[1]; ++oh)
          for (int64_t ow = 0; ow < w.out[2]; ++ow, ++o) {
            const int64_t d0 = std::max<int64_t>(0, od * w.stride[0] - w.pad_begin[0]);
            const int64_t d1 = std::min(w.in[0], od * w.stride[0] - w.pad_begin[0] + w.kernel[0]);
            const int64_t h0 = std::max<int64_t>(0, oh * w.stride[1] - w.pad_begin[1]);
            const int64_t h1 = std::min(w.in[1], oh * w.stride[1] - w.pad_begin[1] + w.kernel[1]);
            const int64_t w0 = std::max<int64_t>(0, ow * w.stride[2] - w.pad_begin[2]);
            const int64_t w1 = std::min(w.in[2], ow * w.stride[2] - w.pad_begin[2] + w.kernel[2]);
            int64_t arg = -1;
            float best = 0;
            for (int64_t d = d0; d < d1; ++d)
              for (int64_t h = h0; h < h1; ++h) {
                const int64_t row = (d * w.in[1] + h) * w.in[2];
                for (int64_t c = w0; c < w1; ++c)
                  if (arg < 0 || x[row + c] > best) best = x[row + c], arg = row + c;
              }
            if (arg >= 0) dx[arg] += dy[o];
          }
    });
  }

  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    const Window3& w = w_;
    const int64_t plane = w.in[0] * w.in[1] * w.in[2], out_plane = w.out[0] * w.out[1] * w.out[2];
    std::vector<double> dx(static_cast<size_t>(planes_ * plane), 0.0);
    for (int64_t p = 0; p < planes_; ++p)
      for (int64_t o = 0; o < out_plane; ++o) {
        const int64_t pos[3] = {o / (w.out[1] * w.out[2]), (o / w.out[2]) % w.out[1], o % w.out[2]};
        int64_t arg = -1;
        // Every tap in window order; the first of equal maxima wins.
        for (int64_t k = 0; k < w.kernel[0] * w.kernel[1] * w.kernel[2]; ++k) {
          const int64_t tap[3] = {k / (w.kernel[1] * w.kernel[2]), (k / w.kernel[2]) % w.kernel[1], k % w.kernel[2]};
          int64_t at = 0;
          bool inside = true;
          for (int a = 0; a < 3; ++a) {
            const int64_t i = pos[a] * w.stride[a] - w.pad_begin[a] + tap[a];
            inside = inside && i >= 0 && i < w.in[a];
            at = at * w.in[a] + i;
          }
          if (inside && (arg < 0 || in[0][p * plane + at] > in[0][p * plane + arg])) arg = at;
        }
        if (arg >= 0) dx[static_cast<size_t>(p * plane + arg)] += in[1][p * out_plane + o];
      }
    for (size_t i = 0; i < dx.size(); ++i) out[0][i] = static_cast<float>(dx[i]);
  }

 private:
  int64_t planes_ = 1;
  Window3 w_;
};

class GlobalAveragePoolGradOp final : public ThreadedOp {
 public:
  GlobalAveragePoolGradOp(const sdk::OpTask& task, const HostCpu& host) {
    const StepTask t(task, {"dy"});
    t.rank(0, 3, true);
    const Shape& dy = t.shape(0);
    const auto size = t.ints("input_size");
    if (size.size() != dy.size() - 2)
      t.fail("input_size gives " + std::to_string(size.size()) + " dims for " + t.tensor(0) + " " + to_string(dy));
    Shape ones = {dy[0], dy[1]}, x = {dy[0], dy[1]};
    for (int64_t s : size) {
      if (s < 1) t.fail("input_size must be positive");
      ones.push_back(1);
      x.push_back(s);
    }
    t.expect(0, ones, "one value per channel of each image");
    planes_ = dy[0] * dy[1];
    plane_ = elements(x) / std::max<int64_t>(1, planes_);
    t.outputs({"dx"}, {x});
    set_shapes(task, {x}, host, 0.5 * static_cast<double>(elements(x)));
  }

  void compute(const std::vector<const float*>& in, const std::vector<float*>& out,
               ThreadPool& pool, int threads) const override {
    const float inv = 1.0f / static_cast<float>(plane_);
    pool.run(planes_, threads, [&](int64_t p, int) { std::fill(out[0] + p * plane_, out[0] + (p + 1) * plane_, in[0][p] * inv); });
  }

  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    for (int64_t p = 0; p < planes_; ++p)
      for (int64_t i = 0; i < plane_; ++i) out[0][p * plane_ + i] = static_cast<float>(in[0][p] / static_cast<double>(plane_));
  }

 private:
  int64_t planes_ = 1, plane_ = 1;
};

}  // namespace

std::unique_ptr<CpuOp> make_pool_grad_op(const sdk::OpTask& task, const HostCpu& host) {
  if (task.op_type == "MaxPoolGradWithArgmax") return std::make_unique<MaxPoolGradOp>(task, host);
  return std::make_unique<GlobalAveragePoolGradOp>(task, host);
}

}  // namespace aoe::cpu
