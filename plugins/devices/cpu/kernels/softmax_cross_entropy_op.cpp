// SoftmaxCrossEntropyWithLogits (docs/training.md): per row of logits
// [N, K] against labels [N, K], the loss -Σ labels · log softmax(logits)
// and its gradient softmax(logits) - labels.
#include "op_factories.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "step_op.h"

namespace aoe::cpu {
namespace {

class SoftmaxCrossEntropyOp final : public ThreadedOp {
 public:
  SoftmaxCrossEntropyOp(const sdk::OpTask& task, const HostCpu& host) {
    const StepTask t(task, {"logits", "labels"});
    t.rank(0, 2);
    t.expect(1, t.shape(0), "the logits' shape");
    n_ = t.shape(0)[0];
    k_ = t.shape(0)[1];
    if (k_ < 1) t.fail(t.tensor(0) + " has no classes");
    t.outputs({"loss", "dlogits"}, {{n_}, t.shape(0)});
    set_shapes(task, {{n_}, t.shape(0)}, host, 8.0 * static_cast<double>(n_ * k_));
  }
  // Labels as a distribution has them.
  ValueRange input_range(size_t i) const override { return i == 1 ? ValueRange{0.0f, 1.0f} : ValueRange{-4.0f, 4.0f}; }

  // Each row: its max, the exponentials (kept in dlogits) and their sum, then
  // the loss from the log of the sum and the gradient from the exponentials.
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out,
               ThreadPool& pool, int threads) const override {
    pool.run(n_, threads, [&](int64_t r, int) {
      const float* l = in[0] + r * k_;
      const float* y = in[1] + r * k_;
      float* d = out[1] + r * k_;
      const float mx = *std::max_element(l, l + k_);
      float sum = 0, dot = 0, labels = 0;
      for (int64_t i = 0; i < k_; ++i) {
        d[i] = std::exp(l[i] - mx);
        sum += d[i];
        dot += y[i] * (l[i] - mx);
        labels += y[i];
      }
      const float log_sum = std::log(sum), inv = 1.0f / sum;
      out[0][r] = labels * log_sum - dot;
      for (int64_t i = 0; i < k_; ++i) d[i] = d[i] * inv - y[i];
    });
  }

  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    for (int64_t r = 0; r < n_; ++r) {
      double mx = in[0][r * k_];
      for (int64_t i = 1; i < k_; ++i) mx = std::max(mx, static_cast<double>(in[0][r * k_ + i]));
      double sum = 0;
      for (int64_t i = 0; i < k_; ++i) sum += std::exp(in[0][r * k_ + i] - mx);
      double loss = 0;
      for (int64_t i = 0; i < k_; ++i) {
        const double log_p = in[0][r * k_ + i] - mx - std::log(sum);
        loss -= in[1][r * k_ + i] * log_p;
        out[1][r * k_ + i] = static_cast<float>(std::exp(log_p) - in[1][r * k_ + i]);
      }
      out[0][r] = static_cast<float>(loss);
    }
  }

 private:
  int64_t n_ = 1, k_ = 1;
};

}  // namespace

std::unique_ptr<CpuOp> make_softmax_cross_entropy_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<SoftmaxCrossEntropyOp>(task, host);
}

}  // namespace aoe::cpu
