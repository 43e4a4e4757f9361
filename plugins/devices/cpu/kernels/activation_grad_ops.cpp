// Gradients of activations (docs/training.md): ReluGradV2 (dy where the
// ReLU's output is positive), Relu6Grad (dy where 0 < x < 6), GeLUGrad
// (dy · (Φ(x) + x · φ(x)), GELU by erf), SigmoidGrad (dy · y · (1 - y)),
// HardSwishGrad, HardSigmoidGrad and SoftmaxGradExt (y · (dy - Σ_axis dy · y)).
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

class ActivationGradOp final : public ThreadedOp {
 public:
  ActivationGradOp(const sdk::OpTask& task, const HostCpu& host) {
    const std::string& t = task.op_type;
    kind_ = t == "GeLUGrad"          ? Kind::gelu
            : t == "Relu6Grad"       ? Kind::relu6
            : t == "SigmoidGrad"     ? Kind::sigmoid
            : t == "HardSwishGrad"   ? Kind::hard_swish
            : t == "HardSigmoidGrad" ? Kind::hard_sigmoid
                                     : Kind::relu;
    const bool reads_y = kind_ == Kind::relu || kind_ == Kind::sigmoid;
    const StepTask st(task, {"dy", reads_y ? "y" : "x"});
    st.expect(1, st.shape(0), "dy's shape");
    if (kind_ == Kind::hard_sigmoid) {
      alpha_ = static_cast<float>(float_attr(task.attrs, "alpha", 0.2));
      const auto beta = static_cast<float>(float_attr(task.attrs, "beta", 0.5));
      if (alpha_ != 0) {
        const float a = -beta / alpha_, b = (1 - beta) / alpha_;
        lo_ = std::min(a, b), hi_ = std::max(a, b);
      }
    }
    count_ = elements(st.shape(0));
    st.outputs({"dx"}, {st.shape(0)});
    set_shapes(task, {st.shape(0)}, host, static_cast<double>(count_) * (kind_ == Kind::gelu ? 10.0 : 0.5));
  }

  // Sigmoid's y lies in [0, 1]; the others' x spans every branch of its gradient.
  ValueRange input_range(size_t i) const override {
    if (i != 1) return {};
    switch (kind_) {
      case Kind::relu6: return {-1.0f, 7.0f};
      case Kind::sigmoid: return {0.0f, 1.0f};
      case Kind::hard_swish: return {-4.0f, 4.0f};
      case Kind::hard_sigmoid: return {lo_ - 1, hi_ + 1};
      default: return {};
    }
  }

  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override {
    const float *dy = in[0], *v = in[1];
    float* dx = out[0];
    const bool gelu = kind_ == Kind::gelu;
    parallel_runs(pool, threads, count_, gelu ? 2048 : 16384, [&](int64_t b, int64_t e) {
      if (!gelu) {
        for (int64_t i = b; i < e; ++i) dx[i] = element_grad(dy[i], v[i]);
        return;
      }
      constexpr float kInvSqrt2 = 0.70710678118654752f, kInvSqrt2Pi = 0.39894228040143268f;
      for (int64_t i = b; i < e; ++i) {
        const float x = v[i];
        dx[i] = dy[i] * (0.5f * (1.0f + std::erf(x * kInvSqrt2)) + x * kInvSqrt2Pi * std::exp(-0.5f * x * x));
      }
    });
  }

  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    for (int64_t i = 0; i < count_; ++i) {
      const double dy = in[0][i], v = in[1][i];
      const double dx = kind_ == Kind::gelu
                            ? dy * (0.5 * std::erfc(-v / std::sqrt(2.0)) + v * std::exp(-0.5 * v * v) / std::sqrt(2.0 * M_PI))
                            : element_grad(dy, v);
      out[0][i] = static_cast<float>(dx);
    }
  }

 private:
  enum class Kind { relu, relu6, gelu, sigmoid, hard_swish, hard_sigmoid };

  // One element's dx but GeLUGrad's: float in the kernel, double in the reference.
  template <class T>
  T element_grad(T dy, T v) const {
    switch (kind_) {
      case Kind::relu6: return v > 0 && v < 6 ? dy : T(0);
      case Kind::sigmoid: return dy * v * (1 - v);  // v is y
      case Kind::hard_swish: return v < -3 ? T(0) : v > 3 ? dy : dy * (v / 3 + T(0.5));
      case Kind::hard_sigmoid: return v > lo_ && v < hi_ ? dy * static_cast<T>(alpha_) : T(0);
      default: return v > 0 ? dy : T(0);  // ReLU's, v is y
    }
  }

  Kind kind_ = Kind::relu;
  // HardSigmoidGrad's slope and the open range of x where alpha · x + beta
  // lies in (0, 1), in float so the kernel and the reference mask alike.
  float alpha_ = 0, lo_ = 0, hi_ = 0;
  int64_t count_ = 0;
};

class SoftmaxGradOp final : public ThreadedOp {
 public:
  SoftmaxGradOp(const sdk::OpTask& task, const HostCpu& host) {
    const StepTask t(task, {"dy", "y"});
    t.rank(0, 1, true);
    t.expect(1, t.shape(0), "dy's shape");
    const Shape& s = t.shape(0);
    const auto rank = static_cast<int64_t>(s.size());
    int64_t axis = int_attr(task.attrs, "axis", -1);
    if (axis < -rank || axis >= rank) t.fail("axis " + std::to_string(axis) + " is outside rank " + std::to_string(rank));
    if (axis < 0) axis += rank;
    outer_ = dims_product(s, 0, static_cast<size_t>(axis));
    axis_ = s[static_cast<size_t>(axis)];
    inner_ = dims_product(s, static_cast<size_t>(axis) + 1, s.size());
    t.outputs({"dx"}, {s});
    set_shapes(task, {s}, host, 3.0 * static_cast<double>(elements(s)));
  }
  // y as a softmax gives it.
  ValueRange input_range(size_t i) const override { return i == 1 ? ValueRange{0.0f, 1.0f} : ValueRange{}; }

  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override {
    const int64_t slice = axis_ * inner_;
    if (slice == 0) return;  // an empty axis: no output
    pool.run(outer_, threads, [&](int64_t o, int) {
      const float* dy = in[0] + o * slice;
      const float* y = in[1] + o * slice;
      float* dx = out[0] + o * slice;
      if (inner_ == 1) {
        const float s = dot8(dy, y, axis_);
        for (int64_t a = 0; a < axis_; ++a) dx[a] = y[a] * (dy[a] - s);
        return;
      }
      // The sums over the axis wait in dx's first row, which is written last.
      for (int64_t i = 0; i < inner_; ++i) dx[i] = dy[i] * y[i];
      for (int64_t a = 1; a < axis_; ++a)
        for (int64_t i = 0; i < inner_; ++i) dx[i] += dy[a * inner_ + i] * y[a * inner_ + i];
      for (int64_t a = axis_ - 1; a >= 0; --a)
        for (int64_t i = 0; i < inner_; ++i) dx[a * inner_ + i] = y[a * inner_ + i] * (dy[a * inner_ + i] - dx[i]);
    });
  }

  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    for (int64_t o = 0; o < outer_; ++o)
      for (int64_t i = 0; i < inner_; ++i) {
        const auto at = [&](int64_t a) { return (o * axis_ + a) * inner_ + i; };
        double s = 0;
        for (int64_t a = 0; a < axis_; ++a) s += static_cast<double>(in[0][at(a)]) * in[1][at(a)];
        for (int64_t a = 0; a < axis_; ++a) out[0][at(a)] = static_cast<float>(in[1][at(a)] * (in[0][at(a)] - s));
      }
  }

 private:
  int64_t outer_ = 1, axis_ = 1, inner_ = 1;  // extents before, along and after the axis
};

}  // namespace

std::unique_ptr<CpuOp> make_activation_grad_op(const sdk::OpTask& task, const HostCpu& host) {
  if (task.op_type == "SoftmaxGradExt") return std::make_unique<SoftmaxGradOp>(task, host);
  return std::make_unique<ActivationGradOp>(task, host);
}

}  // namespace aoe::cpu
