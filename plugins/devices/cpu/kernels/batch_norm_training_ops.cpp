// Batch normalization as a training step runs it (docs/training.md): the
// per-channel sums of x and x² (BNTrainingReduce), the normalisation by the
// batch's statistics (BNTrainingUpdate), and their gradients
// (BNTrainingUpdateGrad: dscale and doffset; BNTrainingReduceGrad: dx).
// Feature maps are N x C x ...; a channel's M = N x H x W values.
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

// N x C x plane of a feature map, and its M.
struct ChannelPlanes {
  int64_t n = 1, c = 1, plane = 1;
  int64_t m() const { return n * plane; }
};

// Input `i` of `t` is a feature map N x C x ...: its planes.
ChannelPlanes planes_of(const StepTask& t, size_t i) {
  t.rank(i, 2, true);
  const Shape& x = t.shape(i);
  ChannelPlanes p{x[0], x[1], 1};
  for (size_t d = 2; d < x.size(); ++d) p.plane *= x[d];
  if (p.m() == 0 || p.c == 0) t.fail(t.tensor(i) + " " + to_string(x) + " is empty");
  return p;
}

void expect_per_channel(const StepTask& t, const ChannelPlanes& p, std::initializer_list<size_t> inputs) {
  for (size_t i : inputs) t.expect(i, {p.c}, "one value per channel");
}

// Per-channel statistics as BNTrainingUpdate computes them: a variance that
// rounding leaves below zero counts as zero.
double variance(double sum, double square_sum, double m) {
  const double mean = sum / m;
  return std::max(0.0, square_sum / m - mean * mean);
}

class BnTrainingReduceOp final : public ThreadedOp {
 public:
  BnTrainingReduceOp(const sdk::OpTask& task, const HostCpu& host) {
    const StepTask t(task, {"x"});
    p_ = planes_of(t, 0);
    t.outputs({"sum", "square_sum"}, {{p_.c}, {p_.c}});
    set_shapes(task, {{p_.c}, {p_.c}}, host, 2.0 * static_cast<double>(p_.c * p_.m()));
  }

  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override {
    pool.run(p_.c, threads, [&](int64_t c, int) {
      double s = 0, sq = 0;
      for (int64_t n = 0; n < p_.n; ++n) {
        const float* x = in[0] + (n * p_.c + c) * p_.plane;
        s += sum8(x, p_.plane);
        sq += dot8(x, x, p_.plane);
      }
      out[0][c] = static_cast<float>(s);
      out[1][c] = static_cast<float>(sq);
    });
  }

  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    for (int64_t c = 0; c < p_.c; ++c) {
      double s = 0, sq = 0;
      for (int64_t n = 0; n < p_.n; ++n)
        for (int64_t i = 0; i < p_.plane; ++i) {
          const double v = in[0][(n * p_.c + c) * p_.plane + i];
          s += v;
          sq += v * v;
        }
      out[0][c] = static_cast<float>(s);
      out[1][c] = static_cast<float>(sq);
    }
  }

 private:
  ChannelPlanes p_;
};

class BnTrainingUpdateOp final : public ThreadedOp {
 public:
  // The chains a training step fuses after it (docs/training.md): the ReLU, or
  // the shortcut's Add and then the ReLU.
  BnTrainingUpdateOp(const sdk::OpTask& task, const HostCpu& host) {
    const std::vector<std::string> relu = {"Relu"}, add_relu = {"Add", "Relu"};
    if (!task.fused_ops.empty() && task.fused_ops != relu && task.fused_ops != add_relu)
      unsupported("the cpu device fuses Relu, or Add then Relu, after BNTrainingUpdate, not these ops");
    relu_ = !task.fused_ops.empty();
    add_ = task.fused_ops == add_relu;
    std::vector<std::string> roles = {"x", "sum", "square_sum", "scale", "offset"};
    if (add_) roles.push_back("shortcut");
    const StepTask t(task, roles, true);
    p_ = planes_of(t, 0);
    expect_per_channel(t, p_, {1, 2, 3, 4});
    epsilon_ = float_attr(task.attrs, "epsilon", 1e-5);
    if (!(epsilon_ >= 0)) t.fail("attribute 'epsilon' must be >= 0");
    const Shape& x = t.shape(0);
    if (add_) t.expect(5, x, "x's shape");
    t.outputs({"y", "batch_mean", "batch_invstd"}, {x, {p_.c}, {p_.c}});
    set_shapes(task, {x, {p_.c}, {p_.c}}, host, 2.0 * static_cast<double>(elements(x)));
  }

  // square_sum / M well above (sum / M)²: a variance the statistics of real data give.
  ValueRange input_range(size_t i) const override {
    const auto m = static_cast<float>(p_.m());
    if (i == 1) return {-0.5f * m, 0.5f * m};
    if (i == 2) return {1.0f * m, 2.0f * m};
    return {};
  }

  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override {
    const auto m = static_cast<float>(p_.m());
    for (int64_t c = 0; c < p_.c; ++c) {
      const float mean = in[1][c] / m;
      const float var = std::max(0.0f, in[2][c] / m - mean * mean);
      out[1][c] = mean;
      out[2][c] = 1.0f / std::sqrt(var + static_cast<float>(epsilon_));
    }
    pool.run(p_.n * p_.c, threads, [&](int64_t plane, int) {
      const int64_t c = plane % p_.c;
      const float a = out[2][c] * in[3][c], b = in[4][c] - out[1][c] * a;
      const float* x = in[0] + plane * p_.plane;
      float* y = out[0] + plane * p_.plane;
      for (int64_t i = 0; i < p_.plane; ++i) y[i] = x[i] * a + b;
      if (add_) {
        const float* shortcut = in[5] + plane * p_.plane;
        for (int64_t i = 0; i < p_.plane; ++i) y[i] += shortcut[i];
      }
      if (relu_)
        for (int64_t i = 0; i < p_.plane; ++i) y[i] = std::max(y[i], 0.0f);
    });
  }

  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    const auto m = static_cast<double>(p_.m());
    for (int64_t c = 0; c < p_.c; ++c) {
      const double mean = in[1][c] / m;
      const double invstd = 1.0 / std::sqrt(variance(in[1][c], in[2][c], m) + epsilon_);
      out[1][c] = static_cast<float>(mean);
      out[2][c] = static_cast<float>(invstd);
      for (int64_t n = 0; n < p_.n; ++n)
        for (int64_t i = 0; i < p_.plane; ++i) {
          const int64_t at = (n * p_.c + c) * p_.plane + i;
          double y = (in[0][at] - mean) * invstd * in[3][c] + in[4][c];
          if (add_) y += in[5][at];
          out[0][at] = static_cast<float>(relu_ ? std::max(y, 0.0) : y);
        }
    }
  }

 private:
  ChannelPlanes p_;
  double epsilon_ = 1e-5;
  bool add_ = false, relu_ = false;  // fused: the shortcut's Add, then the ReLU
};

class BnTrainingUpdateGradOp final : public ThreadedOp {
 public:
  BnTrainingUpdateGradOp(const sdk::OpTask& task, const HostCpu& host) {
    const StepTask t(task, {"dy", "x", "batch_mean", "batch_invstd"});
    p_ = planes_of(t, 0);
    t.expect(1, t.shape(0), "dy's shape");
    expect_per_channel(t, p_, {2, 3});
    t.outputs({"dscale", "doffset"}, {{p_.c}, {p_.c}});
    set_shapes(task, {{p_.c}, {p_.c}}, host, 3.0 * static_cast<double>(p_.c * p_.m()));
  }
  ValueRange input_range(size_t i) const override { return i == 3 ? ValueRange{0.5f, 2.0f} : ValueRange{}; }

  void compute(const std::vector<const float*>& in, const std::vector<float*>& out,
               ThreadPool& pool, int threads) const override {
    pool.run(p_.c, threads, [&](int64_t c, int) {
      const float mean = in[2][c];
      double dyx = 0, dys = 0;
      for (int64_t n = 0; n < p_.n; ++n) {
        const float* dy = in[0] + (n * p_.c + c) * p_.plane;
        const float* x = in[1] + (n * p_.c + c) * p_.plane;
        float acc[8] = {};
        int64_t i = 0;
        for (; i + 8 <= p_.plane; i += 8)
          for (int l = 0; l < 8; ++l) acc[l] += dy[i + l] * (x[i + l] - mean);
        float s = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
        for (; i < p_.plane; ++i) s += dy[i] * (x[i] - mean);
        dyx += s;
        dys += sum8(dy, p_.plane);
      }
      out[0][c] = static_cast<float>(dyx * in[3][c]);
      out[1][c] = static_cast<float>(dys);
    });
  }

  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    for (int64_t c = 0; c < p_.c; ++c) {
      double dscale = 0, doffset = 0;
      for (int64_t n = 0; n < p_.n; ++n)
        for (int64_t i = 0; i < p_.plane; ++i) {
          const int64_t at = (n * p_.c + c) * p_.plane + i;
          const double xhat = (in[1][at] - static_cast<double>(in[2][c])) * in[3][c];
          dscale += in[0][at] * xhat;
          doffset += in[0][at];
        }
      out[0][c] = static_cast<float>(dscale);
      out[1][c] = static_cast<float>(doffset);
    }
  }

 private:
  ChannelPlanes p_;
};

class BnTrainingReduceGradOp final : public ThreadedOp {
 public:
  BnTrainingReduceGradOp(const sdk::OpTask& task, const HostCpu& host) {
    const StepTask t(task, {"dy", "x", "dscale", "doffset", "scale", "batch_mean", "batch_invstd"});
    p_ = planes_of(t, 0);
    t.expect(1, t.shape(0), "dy's shape");
    expect_per_channel(t, p_, {2, 3, 4, 5, 6});
    t.outputs({"dx"}, {t.shape(0)});
    set_shapes(task, {t.shape(0)}, host, 2.0 * static_cast<double>(elements(t.shape(0))));
  }
  ValueRange input_range(size_t i) const override { return i == 6 ? ValueRange{0.5f, 2.0f} : ValueRange{}; }

  void compute(const std::vector<const float*>& in, const std::vector<float*>& out,
               ThreadPool& pool, int threads) const override {
    const auto m = static_cast<float>(p_.m());
    pool.run(p_.n * p_.c, threads, [&](int64_t plane, int) {
      const int64_t c = plane % p_.c;
      const float invstd = in[6][c], mean = in[5][c];
      const float a = in[4][c] * invstd, b = in[3][c] / m, k = in[2][c] / m * invstd;
      const float* dy = in[0] + plane * p_.plane;
      const float* x = in[1] + plane * p_.plane;
      float* dx = out[0] + plane * p_.plane;
      for (int64_t i = 0; i < p_.plane; ++i) dx[i] = a * (dy[i] - b - (x[i] - mean) * k);
    });
  }

  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    const auto m = static_cast<double>(p_.m());
    for (int64_t n = 0; n < p_.n; ++n)
      for (int64_t c = 0; c < p_.c; ++c)
        for (int64_t i = 0; i < p_.plane; ++i) {
          const int64_t at = (n * p_.c + c) * p_.plane + i;
          const double invstd = in[6][c], xhat = (in[1][at] - static_cast<double>(in[5][c])) * invstd;
          out[0][at] = static_cast<float>(static_cast<double>(in[4][c]) * invstd *
                                          (in[0][at] - in[3][c] / m - xhat * in[2][c] / m));
        }
  }

 private:
  ChannelPlanes p_;
};

}  // namespace

std::unique_ptr<CpuOp> make_batch_norm_training_op(const sdk::OpTask& task, const HostCpu& host) {
  if (task.op_type == "BNTrainingReduce") return std::make_unique<BnTrainingReduceOp>(task, host);
  if (task.op_type == "BNTrainingUpdate") return std::make_unique<BnTrainingUpdateOp>(task, host);
  if (task.op_type == "BNTrainingUpdateGrad") return std::make_unique<BnTrainingUpdateGradOp>(task, host);
  return std::make_unique<BnTrainingReduceGradOp>(task, host);
}

}  // namespace aoe::cpu
