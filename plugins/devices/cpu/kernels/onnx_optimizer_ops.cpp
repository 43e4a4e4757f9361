// The optimizers of ONNX's training domain (ai.onnx.preview.training):
// Adagrad, Momentum (standard or Nesterov) and Adam, one step over any
// number of tensors. Inputs: the learning rate R, the update count T (both
// read as the model runs), then each tensor's X, then each one's G, then
// its state (Adagrad H; Momentum V; Adam V, then H). Outputs: each new X,
// then each new state, in the same order.
#include "op_factories.h"

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "op_util.h"
#include "threaded_op.h"

namespace aoe::cpu {
namespace {

// A required attribute of Momentum (the schema gives it no default).
double required(const sdk::OpTask& task, const std::string& who, const char* key) {
  if (!task.attrs.is_object() || !task.attrs.contains(key) || !task.attrs.at(key).is_number())
    invalid(who + ": attribute '" + key + "' is missing; Momentum takes alpha, beta, norm_coefficient and mode");
  return task.attrs.at(key).get<double>();
}

class OnnxOptimizerOp final : public ThreadedOp {
 public:
  enum Kind { kAdagrad, kMomentum, kNesterov, kAdam };

  OnnxOptimizerOp(const sdk::OpTask& task, const HostCpu& host) {
    const std::string who = task.op_type + " '" + task.name + "'";
    if (task.op_type == "Adagrad") {
      kind_ = kAdagrad;
      epsilon_ = float_attr(task.attrs, "epsilon", 1e-6);
      decay_ = float_attr(task.attrs, "decay_factor", 0.0);
      norm_ = float_attr(task.attrs, "norm_coefficient", 0.0);
    } else if (task.op_type == "Momentum") {
      const std::string mode = string_attr(task.attrs, "mode", "");
      if (mode != "standard" && mode != "nesterov")
        invalid(who + ": mode is '" + mode + "'; Momentum takes 'standard' or 'nesterov'");
      kind_ = mode == "nesterov" ? kNesterov : kMomentum;
      alpha_ = required(task, who, "alpha");
      beta_ = required(task, who, "beta");
      norm_ = required(task, who, "norm_coefficient");
    } else {
      kind_ = kAdam;
      alpha_ = float_attr(task.attrs, "alpha", 0.9);
      beta_ = float_attr(task.attrs, "beta", 0.999);
      epsilon_ = float_attr(task.attrs, "epsilon", 1e-6);
      norm_ = float_attr(task.attrs, "norm_coefficient", 0.0);
      norm_post_ = float_attr(task.attrs, "norm_coefficient_post", 0.0);
    }
    if (!task.fused_ops.empty()) unsupported("the cpu device fuses no ops after " + task.op_type);
    require_dtypes(task, Takes::f32, {1});
    require_dtype(task, 1, false, Takes::integral);
    const size_t adjusted = task.inputs.size() < 2 ? 0 : task.inputs.size() - 2;
    if (adjusted == 0 || adjusted % groups() != 0)
      invalid(who + " takes R, T and " + std::to_string(groups()) + " tensors per optimized one (X, G, " +
              (kind_ == kAdam ? "V, H" : kind_ == kAdagrad ? "H" : "V") + "), got " + std::to_string(adjusted) +
              " after R and T");
    tensors_ = adjusted / groups();
    for (size_t i = 0; i < 2; ++i)
      if (elements(task.inputs[i].shape) != 1)
        invalid(who + ": " + (i ? "T" : "R") + " ('" + task.inputs[i].name + "') is " + to_string(task.inputs[i].shape) +
                "; it takes one value");
    std::vector<Shape> outs((groups() - 1) * tensors_);
    double work = 0;
    for (size_t i = 0; i < tensors_; ++i) {
      const Shape& x = task.inputs[2 + i].shape;
      for (size_t k = 1; k < groups(); ++k) {
        const auto& t = task.inputs[2 + k * tensors_ + i];
        if (t.shape != x)
          invalid(who + ": input '" + t.name + "' is " + to_string(t.shape) + ", the shape of the tensor it goes with, '" +
                  task.inputs[2 + i].name + "', is " + to_string(x));
      }
      for (size_t k = 0; k + 1 < groups(); ++k) outs[k * tensors_ + i] = x;
      counts_.push_back(elements(x));
      work += static_cast<double>(counts_.back()) * 4;
    }
    if (!task.outputs.empty() && task.outputs.size() != outs.size())
      invalid(who + " gives " + std::to_string(outs.size()) + " outputs (each new X, then each new " +
              (kind_ == kAdam ? "V, then each new H" : kind_ == kAdagrad ? "H" : "V") + "), the task lists " +
              std::to_string(task.outputs.size()));
    for (size_t o = 0; o < task.outputs.size(); ++o)
      if (task.outputs[o].fully_known() && task.outputs[o].shape != outs[o])
        invalid(who + ": output '" + task.outputs[o].name + "' is " + to_string(task.outputs[o].shape) +
                ", its inputs give " + to_string(outs[o]));
    set_shapes(task, outs, host, work);
  }

  // T counts updates; squared-gradient sums are never negative.
  ValueRange input_range(size_t i) const override {
    if (i == 1) return {0.0f, 8.0f};
    const size_t squares = kind_ == kAdam ? 3 : kind_ == kAdagrad ? 2 : 0;
    if (squares && i >= 2 + squares * tensors_ && i < 2 + (squares + 1) * tensors_) return {0.0f, 1.0f};
    return {};
  }

  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override {
    const auto s = step<float>(in[0][0], in[1][0]);
    for (size_t t = 0; t < tensors_; ++t)
      parallel_runs(pool, threads, counts_[t], 8192, [&](int64_t b, int64_t e) { update(s, in, out, t, b, e); });
  }

  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    const auto s = step<double>(in[0][0], in[1][0]);
    for (size_t t = 0; t < tensors_; ++t) update(s, in, out, t, 0, counts_[t]);
  }

  // One step's coefficients, worked out from R and T once per run.
  template <typename F>
  struct Step {
    F rate = 0, epsilon = 0, norm = 0, post = 1, alpha = 0, beta = 0;
  };

 private:
  // Groups of tensors each optimized one has: X, G and 1 or 2 of state.
  size_t groups() const { return kind_ == kAdam ? 4 : 3; }

  // R and T as the spec adjusts them: Adagrad's decayed rate, Momentum's beta
  // of 1 on the first update (T = 0), Adam's bias-corrected rate.
  template <typename F>
  Step<F> step(double r, double t) const {
    Step<F> s;
    double rate = r, beta = beta_;
    if (kind_ == kAdagrad) rate = r / (1 + t * decay_);
    if ((kind_ == kMomentum || kind_ == kNesterov) && !(t > 0)) beta = 1;
    if (kind_ == kAdam && t > 0) rate = r * std::sqrt(1 - std::pow(beta_, t)) / (1 - std::pow(alpha_, t));
    s.rate = static_cast<F>(rate);
    s.epsilon = static_cast<F>(epsilon_);
    s.norm = static_cast<F>(norm_);
    s.post = static_cast<F>(1 - norm_post_);
    s.alpha = static_cast<F>(alpha_);
    s.beta = static_cast<F>(beta);
    return s;
  }

  // Elements [begin, end) of optimized tensor `tensor`, in F (float for the
  // kernel, double for the reference), by the spec's pseudo code.
  template <typename F>
  void update(const Step<F>& s, const std::vector<const float*>& in, const std::vector<float*>& out,
              size_t tensor, int64_t begin, int64_t end) const {
    const size_t n = tensors_;
    const float* x = in[2 + tensor];
    const float* g = in[2 + n + tensor];
    const float* a = in[2 + 2 * n + tensor];  // H (Adagrad) or V
    const float* h = kind_ == kAdam ? in[2 + 3 * n + tensor] : nullptr;
    float* x_new = out[tensor];
    float* a_new = out[n + tensor];
    float* h_new = kind_ == kAdam ? out[2 * n + tensor] : nullptr;
    for (int64_t i = begin; i < end; ++i) {
      const F xi = x[i], gr = s.norm * xi + static_cast<F>(g[i]), ai = a[i];
      F xn = 0, an = 0;
      switch (kind_) {
        case kAdagrad:
          an = ai + gr * gr;
          xn = xi - s.rate * gr / (std::sqrt(an) + s.epsilon);
          break;
        case kMomentum:
        case kNesterov:
          an = s.alpha * ai + s.beta * gr;
          xn = kind_ == kMomentum ? xi - s.rate * an : xi - s.rate * (gr + s.alpha * an);
          break;
        case kAdam: {
          an = s.alpha * ai + (1 - s.alpha) * gr;
          const F hn = s.beta * static_cast<F>(h[i]) + (1 - s.beta) * gr * gr;
          h_new[i] = static_cast<float>(hn);
          xn = s.post * (xi - s.rate * an / (std::sqrt(hn) + s.epsilon));
          break;
        }
      }
      x_new[i] = static_cast<float>(xn);
      a_new[i] = static_cast<float>(an);
    }
  }

  Kind kind_ = kAdam;
  size_t tensors_ = 0;
  std::vector<int64_t> counts_;  // elements of each optimized tensor
  double alpha_ = 0, beta_ = 0, epsilon_ = 0, decay_ = 0, norm_ = 0, norm_post_ = 0;
};

}  // namespace

std::unique_ptr<CpuOp> make_onnx_optimizer_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<OnnxOptimizerOp>(task, host);
}

}  // namespace aoe::cpu
