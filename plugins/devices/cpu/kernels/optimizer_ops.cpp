// The optimizer's kernels of a training step (docs/training.md), one per
// trainable weight: FusedMulAddN (weight decay added to the gradient),
// ApplyMomentum, ApplyAdam (bias-corrected at `step`), LAMB as
// LambApplyOptimizerAssign, SquareSumV1 and LambApplyWeightAssign.
#include "op_factories.h"

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "op_util.h"
#include "step_op.h"

namespace aoe::cpu {
namespace {

enum Kind { kFusedMulAddN, kMomentum, kAdam, kLambOptimizer, kSquareSum, kLambWeight };

Kind kind_of(const std::string& t) {
  if (t == "FusedMulAddN") return kFusedMulAddN;
  if (t == "ApplyMomentum") return kMomentum;
  if (t == "ApplyAdam") return kAdam;
  if (t == "LambApplyOptimizerAssign") return kLambOptimizer;
  if (t == "SquareSumV1") return kSquareSum;
  return kLambWeight;
}

std::vector<std::string> roles_of(Kind k) {
  switch (k) {
    case kFusedMulAddN: return {"grad", "w"};
    case kMomentum: return {"w", "accum", "grad"};
    case kAdam: return {"w", "m", "v", "grad"};
    case kLambOptimizer: return {"grad", "m", "v", "w"};
    case kSquareSum: return {"t"};
    case kLambWeight: return {"w_square_sum", "update_square_sum", "update", "w"};
  }
  return {};
}

std::vector<std::string> outputs_of(Kind k) {
  switch (k) {
    case kFusedMulAddN: return {"grad'"};
    case kMomentum: return {"w'", "accum'"};
    case kAdam: return {"w'", "m'", "v'"};
    case kLambOptimizer: return {"update", "m'", "v'"};
    case kSquareSum: return {"s"};
    case kLambWeight: return {"w'"};
  }
  return {};
}

// LAMB's trust ratio: 1 where either norm is 0.
template <typename T>
T trust_ratio(T w_square_sum, T update_square_sum) {
  if (!(w_square_sum > 0) || !(update_square_sum > 0)) return 1;
  return std::sqrt(w_square_sum) / std::sqrt(update_square_sum);
}

class OptimizerOp final : public ThreadedOp {
 public:

  OptimizerOp(const sdk::OpTask& task, const HostCpu& host) : kind_(kind_of(task.op_type)) {
    const StepTask t(task, roles_of(kind_));
    // The tensor every other is the shape of: the weight, or what is summed.
    const size_t main = kind_ == kLambWeight ? 3 : 0;
    const Shape& s = t.shape(main);
    for (size_t i = 0; i < task.inputs.size(); ++i) {
      if (kind_ == kLambWeight && i < 2) t.expect(i, {1}, "a sum of squares");
      else t.expect(i, s, "the shape of " + t.tensor(main));
    }
    count_ = elements(s);
    switch (kind_) {
      case kFusedMulAddN: weight_decay_ = t.number("weight_decay"); break;
      case kMomentum:
        lr_ = t.number("lr");
        momentum_ = t.number("momentum");
        break;
      case kAdam:
      case kLambOptimizer:
        if (kind_ == kAdam) lr_ = t.number("lr");
        else weight_decay_ = t.number("weight_decay");
        beta1_ = t.number("beta1");
        beta2_ = t.number("beta2");
        epsilon_ = t.number("epsilon");
        step_ = t.number("step");
        if (!(step_ >= 1)) t.fail("attribute 'step' must be >= 1 (the bias correction divides by 1 - beta^step)");
        if (!(beta1_ >= 0 && beta1_ < 1 && beta2_ >= 0 && beta2_ < 1)) t.fail("attributes 'beta1' and 'beta2' must be in [0, 1)");
        break;
      case kLambWeight: lr_ = t.number("lr"); break;
      case kSquareSum: break;
    }
    std::vector<Shape> outs(outputs_of(kind_).size(), s);
    if (kind_ == kSquareSum) outs = {{1}};
    t.outputs(outputs_of(kind_), outs);
    set_shapes(task, outs, host, static_cast<double>(count_) * (kind_ == kAdam || kind_ == kLambOptimizer ? 4.0 : 1.0));
  }

  // Second moments and square sums are never negative.
  ValueRange input_range(size_t i) const override {
    if ((kind_ == kAdam || kind_ == kLambOptimizer) && i == 2) return {0.0f, 1.0f};
    if (kind_ == kLambWeight && i < 2) return {0.0f, 4.0f};
    return {};
  }

  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override {
    const auto f = [](double v) { return static_cast<float>(v); };
    if (kind_ == kSquareSum) {
      // Fixed runs, their sums added in order: the same result on any thread count.
      constexpr int64_t kRun = 16384;
      std::vector<double> partial(static_cast<size_t>((count_ + kRun - 1) / kRun));
      pool.run(static_cast<int64_t>(partial.size()), threads, [&](int64_t r, int) {
        partial[static_cast<size_t>(r)] = dot8(in[0] + r * kRun, in[0] + r * kRun, std::min(kRun, count_ - r * kRun));
      });
      double s = 0;
      for (double p : partial) s += p;
      out[0][0] = f(s);
      return;
    }
    const float lr = f(lr_), momentum = f(momentum_), b1 = f(beta1_), b2 = f(beta2_), eps = f(epsilon_), wd = f(weight_decay_);
    const float c1 = f(1 - std::pow(beta1_, step_)), c2 = f(1 - std::pow(beta2_, step_));
    const float ratio = kind_ == kLambWeight ? trust_ratio(in[0][0], in[1][0]) : 1.0f;
    // Adam's and LAMB's moments at i for gradient g, kept in outputs 1 and 2.
    const auto moments = [&](int64_t i, float g, float& m, float& v) {
      m = b1 * in[1][i] + (1 - b1) * g;
      v = b2 * in[2][i] + (1 - b2) * g * g;
      out[1][i] = m;
      out[2][i] = v;
    };
    parallel_runs(pool, threads, count_, 8192, [&](int64_t b, int64_t e) {
      switch (kind_) {
        case kFusedMulAddN:
          for (int64_t i = b; i < e; ++i) out[0][i] = in[0][i] + wd * in[1][i];
          break;
        case kMomentum:
          for (int64_t i = b; i < e; ++i) {
            const float a = momentum * in[1][i] + in[2][i];
            out[1][i] = a;
            out[0][i] = in[0][i] - lr * a;
          }
          break;
        case kAdam:
          for (int64_t i = b; i < e; ++i) {
            float m, v;
            moments(i, in[3][i], m, v);
            out[0][i] = in[0][i] - lr * (m / c1) / (std::sqrt(v / c2) + eps);
          }
          break;
        case kLambOptimizer:
          for (int64_t i = b; i < e; ++i) {
            float m, v;
            moments(i, in[0][i], m, v);  // in[0]: the gradient
            out[0][i] = (m / c1) / (std::sqrt(v / c2) + eps) + wd * in[3][i];
          }
          break;
        case kLambWeight:
          for (int64_t i = b; i < e; ++i) out[0][i] = in[3][i] - lr * ratio * in[2][i];
          break;
        case kSquareSum: break;
      }
    });
  }

  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    const auto f = [](double v) { return static_cast<float>(v); };
    const double c1 = 1 - std::pow(beta1_, step_), c2 = 1 - std::pow(beta2_, step_);
    double square_sum = 0;
    for (int64_t i = 0; i < count_; ++i) {
      const auto x = [&](size_t k) { return static_cast<double>(in[k][i]); };
      switch (kind_) {
        case kFusedMulAddN: out[0][i] = f(x(0) + weight_decay_ * x(1)); break;
        case kMomentum: {
          const double accum = momentum_ * x(1) + x(2);
          out[1][i] = f(accum);
          out[0][i] = f(x(0) - lr_ * accum);
          break;
        }
        case kAdam:
        case kLambOptimizer: {
          const double g = kind_ == kAdam ? x(3) : x(0);
          const double m = beta1_ * x(1) + (1 - beta1_) * g, v = beta2_ * x(2) + (1 - beta2_) * g * g;
          const double step = (m / c1) / (std::sqrt(v / c2) + epsilon_);
          out[1][i] = f(m);
          out[2][i] = f(v);
          out[0][i] = kind_ == kAdam ? f(x(0) - lr_ * step) : f(step + weight_decay_ * x(3));
          break;
        }
        case kSquareSum: square_sum += x(0) * x(0); break;
        case kLambWeight:
          out[0][i] = f(x(3) - lr_ * trust_ratio(static_cast<double>(in[0][0]), static_cast<double>(in[1][0])) * x(2));
          break;
      }
    }
    if (kind_ == kSquareSum) out[0][0] = f(square_sum);
  }

 private:
  Kind kind_ = kMomentum;
  int64_t count_ = 0;
  double lr_ = 0, momentum_ = 0, beta1_ = 0, beta2_ = 0, epsilon_ = 0, weight_decay_ = 0, step_ = 1;
};

}  // namespace

std::unique_ptr<CpuOp> make_optimizer_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<OptimizerOp>(task, host);
}

}  // namespace aoe::cpu
