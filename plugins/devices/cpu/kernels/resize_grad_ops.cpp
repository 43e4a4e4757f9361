// The gradients of Resize over H and W (docs/training.md):
// ResizeNearestNeighborV2Grad and ResizeBilinearV2Grad add each position of
// dy into the positions of x the forward Resize read it from, with the
// weights it read them by (half-pixel coordinates; nearest rounds half down).
#include "op_factories.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "op_util.h"
#include "step_op.h"

namespace aoe::cpu {
namespace {

class ResizeGradOp final : public ThreadedOp {
 public:
  ResizeGradOp(const sdk::OpTask& task, const HostCpu& host) {
    const StepTask t(task, {"dy"});
    t.rank(0, 4);
    const Shape& dy = t.shape(0);
    const auto size = t.ints("input_size");
    if (size.size() != 2 || size[0] < 1 || size[1] < 1) t.fail("input_size must give x's H and W, both positive");
    planes_ = dy[0] * dy[1], h_ = size[0], w_ = size[1], ho_ = dy[2], wo_ = dy[3];
    const bool linear = task.op_type == "ResizeBilinearV2Grad";
    rows_ = taps(h_, ho_, linear);
    cols_ = taps(w_, wo_, linear);
    const Shape x = {dy[0], dy[1], h_, w_};
    t.outputs({"dx"}, {x});
    set_shapes(task, {x}, host, (linear ? 2.0 : 0.5) * static_cast<double>(elements(dy)));
  }

  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override {
    pool.run(planes_, threads, [&](int64_t p, int) {
      const float* dy = in[0] + p * ho_ * wo_;
      float* dx = out[0] + p * h_ * w_;
      std::fill(dx, dx + h_ * w_, 0.0f);
      for (int64_t oh = 0; oh < ho_; ++oh) {
        const Tap& r = rows_[static_cast<size_t>(oh)];
        float* lo = dx + r.lo * w_;
        float* hi = dx + r.hi * w_;
        const float* row = dy + oh * wo_;
        for (int64_t ow = 0; ow < wo_; ++ow) {
          const Tap& c = cols_[static_cast<size_t>(ow)];
          const float a = row[ow] * c.w_lo, b = row[ow] * c.w_hi;
          lo[c.lo] += r.w_lo * a, lo[c.hi] += r.w_lo * b;
          hi[c.lo] += r.w_hi * a, hi[c.hi] += r.w_hi * b;
        }
      }
    });
  }

  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    std::vector<double> dx(static_cast<size_t>(h_ * w_));
    for (int64_t p = 0; p < planes_; ++p) {
      std::fill(dx.begin(), dx.end(), 0.0);
      for (int64_t oh = 0; oh < ho_; ++oh)
        for (int64_t ow = 0; ow < wo_; ++ow) {
          const Tap& r = rows_[static_cast<size_t>(oh)];
          const Tap& c = cols_[static_cast<size_t>(ow)];
          const double g = in[0][(p * ho_ + oh) * wo_ + ow];
          for (const auto& [h, wh] : {std::pair{r.lo, double{r.w_lo}}, std::pair{r.hi, double{r.w_hi}}})
            for (const auto& [w, ww] : {std::pair{c.lo, double{c.w_lo}}, std::pair{c.hi, double{c.w_hi}}})
              dx[static_cast<size_t>(h * w_ + w)] += g * wh * ww;
        }
      for (int64_t i = 0; i < h_ * w_; ++i) out[0][p * h_ * w_ + i] = static_cast<float>(dx[static_cast<size_t>(i)]);
    }
  }

 private:
  // Where one output coordinate was read from along an axis: two positions
  // of x and their weights (nearest: the second weight 0).
  struct Tap {
    int64_t lo = 0, hi = 0;
    float w_lo = 1, w_hi = 0;
  };

  // ONNX's half_pixel: output o reads x at (o + 0.5) · in / out - 0.5; linear
  // takes the two positions around it (clamped to the edge), nearest the
  // closer one, the lower on a tie.
  static std::vector<Tap> taps(int64_t in, int64_t out, bool linear) {
    std::vector<Tap> t(static_cast<size_t>(out));
    const auto clamp = [&](double i) { return std::clamp<int64_t>(static_cast<int64_t>(i), 0, in - 1); };
    for (int64_t o = 0; o < out; ++o) {
      const double x = (static_cast<double>(o) + 0.5) * static_cast<double>(in) / static_cast<double>(out) - 0.5;
      const double f = std::floor(x);
      Tap& tap = t[static_cast<size_t>(o)];
      if (linear) {
        tap = {clamp(f), clamp(f + 1), static_cast<float>(1 - (x - f)), static_cast<float>(x - f)};
      } else {
        tap.lo = tap.hi = clamp(x - f > 0.5 ? f + 1 : f);
      }
    }
    return t;
  }

  int64_t planes_ = 1, h_ = 1, w_ = 1, ho_ = 1, wo_ = 1;
  std::vector<Tap> rows_, cols_;
};

}  // namespace

std::unique_ptr<CpuOp> make_resize_grad_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<ResizeGradOp>(task, host);
}

}  // namespace aoe::cpu
