// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (opset 12/13):
// scores N x C x d..., integer targets N x d... (the frontend folds a
// constant one into attribute "target"), an optional weight per class;
// `reduction` none, sum or mean (the weighted losses over the weights of the
// targets not ignored), `ignore_index`. SoftmaxCrossEntropyLoss takes the
// log-softmax over C first, and may give it as its second output.
#include "op_factories.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "cpu_op.h"
#include "op_util.h"
#include "reference.h"
#include "threads_kernel.h"

namespace aoe::cpu {
namespace {

class LossOp final : public CpuOp {
 public:
  enum Knob : size_t { kThreads, kKnobCount };
  enum class Reduction { none, sum, mean };

  LossOp(const sdk::OpTask& task, const HostCpu& host) : softmax_(task.op_type == "SoftmaxCrossEntropyLoss") {
    const std::string who = task.op_type + " '" + task.name + "'";
    if (!task.fused_ops.empty()) unsupported("the cpu device fuses no ops after " + task.op_type);
    require_f32(task, {1});
    require_inputs(task, 2, 3);
    const Shape scores = task.inputs[0].shape, target = task.inputs[1].shape;
    if (scores.size() < 2) invalid(who + " takes scores of N x C x d..., not " + to_string(scores));
    Shape want_target = {scores[0]};
    want_target.insert(want_target.end(), scores.begin() + 2, scores.end());
    if (target != want_target) invalid(who + ": target " + to_string(target) + " for scores " + to_string(scores));
    n_ = scores[0];
    classes_ = scores[1];
    positions_ = dims_product(scores, 2, scores.size());
    weighted_ = task.inputs.size() > 2;
    if (weighted_ && task.inputs[2].shape != Shape{classes_}) invalid(who + ": weight " + to_string(task.inputs[2].shape) + " for " + std::to_string(classes_) + " classes");
    const std::string reduction = string_attr(task.attrs, "reduction", "mean");
    if (reduction == "none") reduction_ = Reduction::none;
    else if (reduction == "sum") reduction_ = Reduction::sum;
    else if (reduction != "mean") invalid(who + ": reduction '" + reduction + "' is none of none, sum, mean");
    ignores_ = task.attrs.is_object() && task.attrs.contains("ignore_index");
    ignore_index_ = int_attr(task.attrs, "ignore_index", 0);
    targets_ = folded_ints(task, 1, "target");
    for (size_t i = 0; i < targets_.size(); ++i)
      if ((targets_[i] < 0 || targets_[i] >= classes_) && !(ignores_ && targets_[i] == ignore_index_))
        invalid(who + ": target " + std::to_string(targets_[i]) + " at position " + std::to_string(i) + " is no class of " +
                std::to_string(classes_) + " nor the ignore_index");
    inputs_ = {scores, target};
    if (weighted_) inputs_.push_back(task.inputs[2].shape);
    outputs_ = {reduction_ == Reduction::none ? target : Shape{}};
    if (task.outputs.size() > 1) {
      if (!softmax_) invalid(who + " has one output");
      outputs_.push_back(scores);
    }
    for (size_t i = 0; i < task.outputs.size() && i < outputs_.size(); ++i)
      if (task.outputs[i].fully_known() && elements(task.outputs[i].shape) != elements(outputs_[i]))
        invalid(who + ": output " + std::to_string(i) + " is " + to_string(task.outputs[i].shape) + ", expected " + to_string(outputs_[i]));
    space_ = threads_space(host, static_cast<double>(elements(scores)) * (softmax_ ? 8.0 : 0.25));
  }

  std::string check(const sdk::Config&) const override { return {}; }
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;

  // As ONNX defines them: the log-softmax over C by its formula, each
  // position's loss -weight[t] * score[n, t, d...], then the reduction.
  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    const int64_t c = classes_, d = positions_;
    std::vector<double> scores(in[0], in[0] + n_ * c * d);
    if (softmax_) {
      for (int64_t n = 0; n < n_; ++n)
        for (int64_t p = 0; p < d; ++p) {
          double max = -std::numeric_limits<double>::infinity(), sum = 0;
          for (int64_t k = 0; k < c; ++k) max = std::max(max, scores[static_cast<size_t>((n * c + k) * d + p)]);
          for (int64_t k = 0; k < c; ++k) sum += std::exp(scores[static_cast<size_t>((n * c + k) * d + p)] - max);
          for (int64_t k = 0; k < c; ++k) scores[static_cast<size_t>((n * c + k) * d + p)] -= max + std::log(sum);
        }
      if (out.size() > 1) store(scores, out[1]);
    }
    std::vector<double> losses;
    double weights = 0;
    for (int64_t i = 0; i < n_ * d; ++i) {
      const int64_t t = targets_[static_cast<size_t>(i)], n = i / d, p = i % d;
      const bool ignored = ignores_ && t == ignore_index_;
      const double w = ignored ? 0.0 : weighted_ ? in[2][t] : 1.0;
      losses.push_back(ignored ? 0.0 : -scores[static_cast<size_t>((n * c + t) * d + p)] * w);
      weights += w;
    }
    double total = 0;
    for (double l : losses) total += l;
    if (reduction_ == Reduction::none) store(losses, out[0]);
    else out[0][0] = static_cast<float>(reduction_ == Reduction::sum ? total : total / weights);
  }

 private:
  friend class LossKernel;
  bool softmax_ = false;  // SoftmaxCrossEntropyLoss
  bool weighted_ = false;
  Reduction reduction_ = Reduction::mean;
  int64_t n_ = 0, classes_ = 0, positions_ = 1;  // positions: the d... of each of N
  std::vector<int64_t> targets_;                 // N x positions; ignore_index_ where ignored
  int64_t ignore_index_ = 0;
  bool ignores_ = false;
};

class LossKernel final : public ThreadsKernel<LossOp> {
 public:
  LossKernel(const LossOp& op, int threads)
      : ThreadsKernel(op, threads), losses_(op.n_ * op.positions_), weights_(op.n_ * op.positions_) {
    if (op.softmax_ && op.output_shapes().size() < 2) log_prob_.resize(op.n_ * op.classes_ * op.positions_);
    if (op.softmax_) row_stats_.resize(2 * op.positions_ * threads);
  }

  void run(ThreadPool& pool) override {
    const int64_t c = op_.classes_, d = op_.positions_;
    const float* scores = inputs_[0];
    if (op_.softmax_) {
      float* lp = op_.output_shapes().size() > 1 ? outputs_[1].data() : log_prob_.data();
      // Per image: the max and the sum of exp over C of every position, C outer so rows stay contiguous.
      pool.run(op_.n_, threads_, [&](int64_t n, int thread) {
        float* max = row_stats_.data() + 2 * d * thread;
        float* sum = max + d;
        const float* x = scores + n * c * d;
        float* y = lp + n * c * d;
        std::fill(max, max + d, -std::numeric_limits<float>::infinity());
        std::fill(sum, sum + d, 0.0f);
        for (int64_t k = 0; k < c; ++k)
          for (int64_t p = 0; p < d; ++p) max[p] = std::max(max[p], x[k * d + p]);
        for (int64_t k = 0; k < c; ++k)
          for (int64_t p = 0; p < d; ++p) sum[p] += std::exp(x[k * d + p] - max[p]);
        for (int64_t p = 0; p < d; ++p) sum[p] = max[p] + std::log(sum[p]);
        for (int64_t k = 0; k < c; ++k)
          for (int64_t p = 0; p < d; ++p) y[k * d + p] = x[k * d + p] - sum[p];
      });
      scores = lp;
    }
    const float* weight = op_.weighted_ ? inputs_[2] : nullptr;
    const bool none = op_.reduction_ == LossOp::Reduction::none;
    float* loss = none ? outputs_[0].data() : losses_.data();
    pool.run(op_.n_, threads_, [&](int64_t n, int) {
      for (int64_t p = 0; p < d; ++p) {
        const int64_t at = n * d + p, t = op_.targets_[static_cast<size_t>(at)];
        const float w = op_.ignores_ && t == op_.ignore_index_ ? 0.0f : weight ? weight[t] : 1.0f;
        loss[at] = w == 0.0f ? 0.0f : -scores[(n * c + t) * d + p] * w;
        weights_.data()[at] = w;
      }
    });
    if (none) return;
    // The total in double: a mean over many positions keeps float's precision.
    double total = 0, weights = 0;
    for (int64_t i = 0; i < losses_.size(); ++i) total += loss[i], weights += weights_.data()[i];
    outputs_[0].data()[0] = static_cast<float>(op_.reduction_ == LossOp::Reduction::sum ? total : total / weights);
  }

 private:
  Buffer losses_, weights_, log_prob_, row_stats_;
};

std::unique_ptr<Kernel> LossOp::build(const sdk::Config& c) const { return threads_kernel<LossKernel>(*this, c); }

}  // namespace

std::unique_ptr<CpuOp> make_loss_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<LossOp>(task, host);
}

}  // namespace aoe::cpu
