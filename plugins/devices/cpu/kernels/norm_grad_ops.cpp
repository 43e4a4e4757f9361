// Gradients of LayerNormalization over the last axis (docs/training.md):
// LayerNormXBackpropV2 (dx, through the row's statistics too) and
// LayerNormBetaGammaBackpropV2 (dgamma, dbeta), from the forward op's
// per-row mean and invstd.
#include "op_factories.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "op_util.h"
#include "step_op.h"

namespace aoe::cpu {
namespace {

class LayerNormGradOp final : public ThreadedOp {
 public:
  LayerNormGradOp(const sdk::OpTask& task, const HostCpu& host)
      : x_(task.op_type == "LayerNormXBackpropV2") {
    std::vector<std::string> roles = {"dy", "x", "mean", "invstd"};
    if (x_) roles.push_back("gamma");
    const StepTask t(task, roles);
    t.rank(0, 1, true);
    t.expect(1, t.shape(0), "dy's shape");
    const Shape& s = t.shape(0);
    const int64_t axis = int_attr(task.attrs, "axis", -1);
    if (axis != -1 && axis != static_cast<int64_t>(s.size()) - 1)
      unsupported("the cpu device runs " + t.who() + " over the last axis only (axis -1), not " + std::to_string(axis));
    d_ = s.back();
    rows_ = elements(s) / std::max<int64_t>(1, d_);
    // The statistics: x's shape with a last dim of 1, or [rows, 1], or [rows].
    Shape kept = s;
    kept.back() = 1;
    for (size_t i : {size_t{2}, size_t{3}}) {
      const Shape& m = t.shape(i);
      if (m != kept && m != Shape{rows_, 1} && m != Shape{rows_})
        t.fail(t.tensor(i) + " is " + to_string(m) + ", expected " + to_string(kept) + " (one value per row of " +
               to_string(s) + ")");
    }
    if (x_) t.expect(4, {d_}, "one value per element of the normalised axis");
    const std::vector<Shape> outs = x_ ? std::vector<Shape>{s} : std::vector<Shape>{{d_}, {d_}};
    t.outputs(x_ ? std::vector<std::string>{"dx"} : std::vector<std::string>{"dgamma", "dbeta"}, outs);
    set_shapes(task, outs, host, 4.0 * static_cast<double>(elements(s)));
  }
  ValueRange input_range(size_t i) const override { return i == 3 ? ValueRange{0.5f, 2.0f} : ValueRange{}; }

  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override {
    const float *dy = in[0], *x = in[1], *mean = in[2], *invstd = in[3];
    if (x_) {
      const float* gamma = in[4];
      const float inv_d = 1.0f / static_cast<float>(d_);
      pool.run(rows_, threads, [&](int64_t r, int) {
        const float* dyr = dy + r * d_;
        const float* xr = x + r * d_;
        const float mu = mean[r], is = invstd[r];
        float sg = 0, sgx = 0;
        for (int64_t i = 0; i < d_; ++i) {
          const float g = dyr[i] * gamma[i];
          sg += g;
          sgx += g * (xr[i] - mu) * is;
        }
        const float mg = sg * inv_d, mgx = sgx * inv_d;
        float* dx = out[0] + r * d_;
        for (int64_t i = 0; i < d_; ++i) dx[i] = is * (dyr[i] * gamma[i] - mg - (xr[i] - mu) * is * mgx);
      });
      return;
    }
    // Columns in runs the threads share, each run summed over every row.
    parallel_runs(pool, threads, d_, std::max<int64_t>(16, 4096 * 64 / std::max<int64_t>(rows_, 1)), [&](int64_t b, int64_t e) {
      float* dgamma = out[0];
      float* dbeta = out[1];
      std::fill(dgamma + b, dgamma + e, 0.0f);
      std::fill(dbeta + b, dbeta + e, 0.0f);
      for (int64_t r = 0; r < rows_; ++r) {
        const float* dyr = dy + r * d_;
        const float* xr = x + r * d_;
        const float mu = mean[r], is = invstd[r];
        for (int64_t i = b; i < e; ++i) {
          dgamma[i] += dyr[i] * (xr[i] - mu) * is;
          dbeta[i] += dyr[i];
        }
      }
    });
  }

  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    std::vector<double> dgamma(static_cast<size_t>(d_)), dbeta(static_cast<size_t>(d_));
    for (int64_t r = 0; r < rows_; ++r) {
      const double mu = in[2][r], is = in[3][r];
      const auto xhat = [&](int64_t i) { return (in[1][r * d_ + i] - mu) * is; };
      if (!x_) {
        for (int64_t i = 0; i < d_; ++i) {
          dgamma[static_cast<size_t>(i)] += in[0][r * d_ + i] * xhat(i);
          dbeta[static_cast<size_t>(i)] += in[0][r * d_ + i];
        }
        continue;
      }
      double mg = 0, mgx = 0;
      for (int64_t i = 0; i < d_; ++i) {
        const double g = static_cast<double>(in[0][r * d_ + i]) * in[4][i];
        mg += g / static_cast<double>(d_);
        mgx += g * xhat(i) / static_cast<double>(d_);
      }
      for (int64_t i = 0; i < d_; ++i)
        out[0][r * d_ + i] = static_cast<float>(is * (static_cast<double>(in[0][r * d_ + i]) * in[4][i] - mg - xhat(i) * mgx));
    }
    if (!x_)
      for (int64_t i = 0; i < d_; ++i) {
        out[0][i] = static_cast<float>(dgamma[static_cast<size_t>(i)]);
        out[1][i] = static_cast<float>(dbeta[static_cast<size_t>(i)]);
      }
  }

 private:
  bool x_ = true;  // LayerNormXBackpropV2, else LayerNormBetaGammaBackpropV2
  int64_t rows_ = 1, d_ = 1;
};

}  // namespace

std::unique_ptr<CpuOp> make_layer_norm_grad_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<LayerNormGradOp>(task, host);
}

}  // namespace aoe::cpu
