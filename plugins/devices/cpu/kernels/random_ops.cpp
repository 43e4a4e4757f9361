// The ops whose outputs are random draws: RandomUniform and RandomNormal (of
// the `shape` attribute), RandomUniformLike and RandomNormalLike (of their
// input's shape), Bernoulli (a 0 or 1 for each probability of its input) and
// Multinomial (sample_size class indices for each row of logits). Each
// value is a draw of counter_random.h addressed by its index, so the
// threaded kernel and the reference give the same values; the draws' law is
// checked by the tests, by statistics over many of them.
#include "op_factories.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "counter_random.h"
#include "op_util.h"
#include "threaded_op.h"

namespace aoe::cpu {
namespace {

// Per value, about what a Philox block and the transform after it cost (ns).
constexpr double kDrawWork = 4.0;
constexpr int64_t kGrain = 16384;

// `v` as a tensor of dtype `t` holds it (float16 and bfloat16 keep their own precision).
float held_as(double v, sdk::DType t) {
  if (t == sdk::DType::f16) return static_cast<float>(as_float16(v));
  if (t == sdk::DType::bf16) return static_cast<float>(as_bfloat16(v));
  return static_cast<float>(v);
}

// RandomUniform(Like): low + (high - low) u; RandomNormal(Like): mean + scale z.
class RandomDrawOp final : public ThreadedOp {
 public:
  RandomDrawOp(const sdk::OpTask& task, const HostCpu& host)
      : random_(op_seed(task)), normal_(task.op_type.find("Normal") != std::string::npos) {
    const std::string who = task.op_type + " '" + task.name + "'";
    if (!task.fused_ops.empty()) unsupported("the cpu device fuses no ops after " + task.op_type);
    const bool like = task.op_type.ends_with("Like");
    require_inputs(task, like ? 1 : 0, like ? 1 : 0);
    if (like) require_dtype(task, 0, false, Takes::held);  // only its shape is read
    if (task.outputs.size() != 1) invalid(who + " gives one output, not " + std::to_string(task.outputs.size()));
    require_dtype(task, 0, true, Takes::f32);
    dtype_ = task.outputs[0].dtype;
    Shape shape;
    if (like) {
      shape = task.inputs[0].shape;
    } else {
      if (!task.attrs.is_object() || !task.attrs.contains("shape")) invalid(who + " has no attribute 'shape'");
      shape = ints_attr(task.attrs, "shape", {});
      for (const int64_t d : shape)
        if (d < 0) invalid(who + ": attribute 'shape' " + to_string(shape) + " has a negative dim");
    }
    require_output_shape(task, shape);
    a_ = float_attr(task.attrs, normal_ ? "mean" : "low", 0.0);
    b_ = float_attr(task.attrs, normal_ ? "scale" : "high", 1.0);
    count_ = elements(shape);
    set_shapes(task, {shape}, host, static_cast<double>(count_) * kDrawWork);
  }

  void compute(const std::vector<const float*>&, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override {
    float* y = out[0];
    parallel_runs(pool, threads, count_, kGrain, [&](int64_t begin, int64_t end) {
      if (normal_) {
        for (int64_t i = begin; i < end; ++i) y[i] = held_as(a_ + b_ * random_.normal(static_cast<uint64_t>(i)), dtype_);
        return;
      }
      random_.each_uniform(begin, end, [&](int64_t i, float u) { y[i] = held_as(a_ + (b_ - a_) * u, dtype_); });
    });
  }

  void reference(const std::vector<const float*>&, const std::vector<float*>& out) const override {
    for (int64_t i = 0; i < count_; ++i) {
      const auto at = static_cast<uint64_t>(i);
      out[0][i] = held_as(normal_ ? a_ + b_ * random_.normal(at) : a_ + (b_ - a_) * random_.uniform(at), dtype_);
    }
  }

 private:
  CounterRandom random_;
  bool normal_;
  double a_ = 0, b_ = 1;
  sdk::DType dtype_ = sdk::DType::f32;
  int64_t count_ = 0;
};

// y = 1 where a uniform draw falls below the input's probability, else 0.
class BernoulliOp final : public ThreadedOp {
 public:
  BernoulliOp(const sdk::OpTask& task, const HostCpu& host) : random_(op_seed(task)) {
    if (!task.fused_ops.empty()) unsupported("the cpu device fuses no ops after Bernoulli");
    require_inputs(task, 1, 1);
    require_dtype(task, 0, false, Takes::f32);
    if (task.outputs.size() != 1)
      invalid("Bernoulli '" + task.name + "' gives one output, not " + std::to_string(task.outputs.size()));
    require_dtype(task, 0, true, Takes::held);  // 0 and 1 are exact in every dtype
    require_output_shape(task, task.inputs[0].shape);
    count_ = elements(task.inputs[0].shape);
    set_shapes(task, {task.inputs[0].shape}, host, static_cast<double>(count_) * kDrawWork);
  }

  ValueRange input_range(size_t) const override { return {0.0f, 1.0f}; }

  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override {
    const float* p = in[0];
    float* y = out[0];
    parallel_runs(pool, threads, count_, kGrain, [&](int64_t begin, int64_t end) {
      random_.each_uniform(begin, end, [&](int64_t i, float u) { y[i] = u < p[i] ? 1.0f : 0.0f; });
    });
  }

  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    for (int64_t i = 0; i < count_; ++i) out[0][i] = random_.uniform(static_cast<uint64_t>(i)) < in[0][i] ? 1.0f : 0.0f;
  }

 private:
  CounterRandom random_;
  int64_t count_ = 0;
};

// Each row of [batch, classes] unnormalised log-probabilities gives
// sample_size class indices; sample s of row b is the first class whose
// cumulative probability exceeds draw b * sample_size + s.
class MultinomialOp final : public ThreadedOp {
 public:
  MultinomialOp(const sdk::OpTask& task, const HostCpu& host) : random_(op_seed(task)) {
    const std::string who = "Multinomial '" + task.name + "'";
    if (!task.fused_ops.empty()) unsupported("the cpu device fuses no ops after Multinomial");
    require_inputs(task, 1, 1);
    require_dtype(task, 0, false, Takes::f32);
    if (task.outputs.size() != 1) invalid(who + " gives one output, not " + std::to_string(task.outputs.size()));
    require_dtype(task, 0, true, Takes::integral);
    const Shape& x = task.inputs[0].shape;
    if (x.size() != 2 || x[1] < 1) invalid(who + " takes [batch, classes] logits, not " + to_string(x));
    samples_ = int_attr(task.attrs, "sample_size", 1);
    if (samples_ < 1) invalid(who + ": sample_size must be at least 1, not " + std::to_string(samples_));
    rows_ = x[0], classes_ = x[1];
    require_output_shape(task, {rows_, samples_});
    set_shapes(task, {{rows_, samples_}}, host, static_cast<double>(rows_) * (classes_ * 10.0 + samples_ * kDrawWork * 4));
  }

  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override {
    pool.run(rows_, threads, [&](int64_t b, int) {
      const std::vector<double> cdf = cumulative(in[0] + b * classes_);
      for (int64_t s = 0; s < samples_; ++s) {
        const double u = draw(b, s) * cdf.back();
        const auto at = std::upper_bound(cdf.begin(), cdf.end(), u) - cdf.begin();
        out[0][b * samples_ + s] = static_cast<float>(std::min<int64_t>(at, classes_ - 1));
      }
    });
  }

  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    for (int64_t b = 0; b < rows_; ++b) {
      const std::vector<double> cdf = cumulative(in[0] + b * classes_);
      for (int64_t s = 0; s < samples_; ++s) {
        const double u = draw(b, s) * cdf.back();
        int64_t c = 0;
        while (c + 1 < classes_ && cdf[static_cast<size_t>(c)] <= u) ++c;
        out[0][b * samples_ + s] = static_cast<float>(c);
      }
    }
  }

 private:
  // The row's cumulative probabilities, unnormalised: exp(x - max), summed in order.
  std::vector<double> cumulative(const float* x) const {
    const double top = *std::max_element(x, x + classes_);
    std::vector<double> cdf(static_cast<size_t>(classes_));
    double sum = 0;
    for (int64_t c = 0; c < classes_; ++c) cdf[static_cast<size_t>(c)] = sum += std::exp(x[c] - top);
    return cdf;
  }
  double draw(int64_t b, int64_t s) const { return random_.uniform(static_cast<uint64_t>(b * samples_ + s)); }

  CounterRandom random_;
  int64_t rows_ = 0, classes_ = 0, samples_ = 1;
};

}  // namespace

std::unique_ptr<CpuOp> make_random_op(const sdk::OpTask& task, const HostCpu& host) {
  if (task.op_type == "Bernoulli") return std::make_unique<BernoulliOp>(task, host);
  if (task.op_type == "Multinomial") return std::make_unique<MultinomialOp>(task, host);
  return std::make_unique<RandomDrawOp>(task, host);
}

}  // namespace aoe::cpu
