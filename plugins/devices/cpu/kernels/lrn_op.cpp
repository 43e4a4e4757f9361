// LRN across channels: y = x / (bias + alpha / size * sum of x^2 over the
// `size` channels around)^beta, on N x C x ...
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

class LrnOp final : public ThreadedOp {
 public:
  LrnOp(const sdk::OpTask& task, const HostCpu& host) {
    const std::string who = "LRN '" + task.name + "'";
    require_plain(task, 1, 1);
    const Shape in = task.inputs[0].shape;
    if (in.size() < 3) invalid(who + " takes N x C x spatial input");
    size_ = int_attr(task.attrs, "size", 0);
    if (size_ < 1) invalid(who + " needs a size of 1 or more");
    alpha_ = float_attr(task.attrs, "alpha", 1e-4);
    beta_ = float_attr(task.attrs, "beta", 0.75);
    bias_ = float_attr(task.attrs, "bias", 1.0);
    n_ = in[0];
    channels_ = in[1];
    plane_ = dims_product(in, 2, in.size());
    inputs_ = {in};
    outputs_ = {in};
    require_output_shape(task, in);
    space_ = threads_space(host, static_cast<double>(elements(in) * (size_ + 8)));
  }

  // A task per output plane: the window's planes read in runs, element by element.
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override {
    const int64_t c = channels_, plane = plane_, size = size_;
    const int64_t before = (size - 1) / 2, after = size - 1 - before;
    const float* x = in[0];
    float* y = out[0];
    const float scale = static_cast<float>(alpha_ / static_cast<double>(size));
    const float bias = static_cast<float>(bias_), beta = static_cast<float>(beta_);
    pool.run(n_ * c, threads, [&](int64_t task, int) {
      const int64_t n = task / c, ch = task % c;
      const int64_t lo = std::max<int64_t>(0, ch - before), hi = std::min(c - 1, ch + after);
      const float* src = x + task * plane;
      float* dst = y + task * plane;
      std::fill(dst, dst + plane, 0.0f);
      for (int64_t k = lo; k <= hi; ++k) {
        const float* w = x + (n * c + k) * plane;
        for (int64_t s = 0; s < plane; ++s) dst[s] += w[s] * w[s];
      }
      for (int64_t s = 0; s < plane; ++s) dst[s] = src[s] / std::pow(bias + scale * dst[s], beta);
    });
  }

  // As ONNX defines it: channels from c - floor((size - 1) / 2) to c + ceil((size - 1) / 2).
  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    const int64_t lo_off = (size_ - 1) / 2, hi_off = size_ - 1 - lo_off;
    for (int64_t n = 0; n < n_; ++n)
      for (int64_t c = 0; c < channels_; ++c)
        for (int64_t s = 0; s < plane_; ++s) {
          double sum = 0;
          for (int64_t k = std::max<int64_t>(0, c - lo_off); k <= std::min(channels_ - 1, c + hi_off); ++k) {
            const double v = in[0][(n * channels_ + k) * plane_ + s];
            sum += v * v;
          }
          const int64_t at = (n * channels_ + c) * plane_ + s;
          out[0][at] = static_cast<float>(in[0][at] / std::pow(bias_ + alpha_ / static_cast<double>(size_) * sum, beta_));
        }
  }

 private:
  double alpha_ = 1e-4, beta_ = 0.75, bias_ = 1.0;
  int64_t size_ = 1, n_ = 1, channels_ = 1, plane_ = 1;
};

}  // namespace

std::unique_ptr<CpuOp> make_lrn_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<LrnOp>(task, host);
}

}  // namespace aoe::cpu
