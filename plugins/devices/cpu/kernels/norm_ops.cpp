// Softmax and LayerNormalization: each row of the normalized axes at a
// time, rows shared among threads.
#include "op_factories.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "buffer_kernel.h"
#include "cpu_op.h"
#include "op_util.h"
#include "reference.h"

namespace aoe::cpu {
namespace {

// Rows per task, so a task is worth a fork-join share (~4K values).
int64_t rows_per_task(int64_t row) { return std::max<int64_t>(1, 4096 / std::max<int64_t>(1, row)); }

// The space both ops have, knobs in this order: the ISA, the way the op
// works (impl knob `name`), threads; by default the best ISA, the first
// way, and threads for `work`.
sdk::TuningSpace isa_way_threads_space(const HostCpu& host, const std::string& name, std::vector<std::string> ways,
                                       double work) {
  sdk::TuningSpace space;
  space.version = "1";
  space.knobs = {isa_knob(), choice_knob(name, sdk::KnobTag::impl, std::move(ways)), threads_knob(host)};
  space.default_config = {static_cast<int64_t>(host.best_isa()), 0, default_threads(host, work)};
  return space;
}

// Softmax along `axis` (opset 13): the (outer, length, inner) view.
class SoftmaxOp final : public CpuOp {
 public:
  enum Knob : size_t { kIsa, kPasses, kThreads, kKnobCount };

  SoftmaxOp(const sdk::OpTask& task, const HostCpu& host) : host_(host), log_(task.op_type == "LogSoftmax") {
    if (!task.fused_ops.empty()) unsupported("the cpu device fuses no ops after " + task.op_type);
    require_f32(task);
    require_inputs(task, 1, 1);
    const Shape in = task.inputs[0].shape;
    inputs_ = {in};
    outputs_ = {in};
    const auto rank = static_cast<int64_t>(in.size());
    if (rank == 0) invalid("Softmax takes an input of rank >= 1");
    const int64_t axis = normalize_axis(int_attr(task.attrs, "axis", -1), rank, "Softmax");
    for (int64_t d = 0; d < rank; ++d) (d < axis ? outer_ : d == axis ? length_ : inner_) *= in[static_cast<size_t>(d)];

    space_ = isa_way_threads_space(host, "passes", {"three_pass", "online"}, static_cast<double>(elements(in)) * 2.0);
  }

  std::string check(const sdk::Config& c) const override {
    if (auto why = isa_refusal(host_, c[kIsa]); !why.empty()) return why;
    if (c[kPasses] == 1 && inner_ > 1) return "online softmax runs along a contiguous axis; this one has stride " + std::to_string(inner_);
    if (c[kPasses] == 1 && log_) return "LogSoftmax runs in three passes";
    return {};
  }
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;

  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override {
    const float* x = inputs[0];
    float* y = outputs[0];
    for (int64_t o = 0; o < outer_; ++o)
      for (int64_t i = 0; i < inner_; ++i) {
        auto at = [&](int64_t l) { return (o * length_ + l) * inner_ + i; };
        double m = -INFINITY, s = 0;
        for (int64_t l = 0; l < length_; ++l) m = std::max(m, static_cast<double>(x[at(l)]));
        for (int64_t l = 0; l < length_; ++l) s += std::exp(x[at(l)] - m);
        for (int64_t l = 0; l < length_; ++l)
          y[at(l)] = static_cast<float>(log_ ? x[at(l)] - m - std::log(s) : std::exp(x[at(l)] - m) / s);
      }
  }

 private:
  friend class SoftmaxKernel;
  const HostCpu& host_;
  bool log_;  // LogSoftmax
  int64_t outer_ = 1, length_ = 1, inner_ = 1;
};

class SoftmaxKernel final : public BufferKernel {
 public:
  SoftmaxKernel(const SoftmaxOp& op, const IsaKernels& isa, int passes, int threads)
      : BufferKernel(op), op_(op), isa_(isa), passes_(passes), threads_(threads) {
    if (op.inner_ > 1) scratch_.resize(2 * op.inner_ * threads);
  }

  void run(ThreadPool& pool) override {
    const float* x = inputs_[0];
    float* y = outputs_[0].data();
    const int64_t len = op_.length_, inner = op_.inner_;
    if (op_.log_) {  // x - max - log(sum(exp(x - max))): no probability rounds to 0 on the way
      pool.run(op_.outer_, threads_, [&](int64_t o, int) { log_softmax(x, y, o); });
      return;
    }
    if (inner == 1) {
      const int64_t per = rows_per_task(len);
      pool.run((op_.outer_ + per - 1) / per, threads_, [&](int64_t t, int) {
        for (int64_t r = t * per; r < std::min(op_.outer_, (t + 1) * per); ++r)
          isa_.softmax_row(x + r * len, y + r * len, len, passes_);
      });
      return;
    }
    // Softmax down columns: rows of `inner` values, lane-parallel.
    pool.run(op_.outer_, threads_, [&](int64_t o, int thread) {
      const float* xs = x + o * len * inner;
      float* ys = y + o * len * inner;
      float* m = scratch_.data() + 2 * inner * thread;
      float* s = m + inner;
      std::copy(xs, xs + inner, m);
      for (int64_t l = 1; l < len; ++l) isa_.accumulate(1, m, xs + l * inner, inner);
      std::fill(s, s + inner, 0.0f);
      for (int64_t l = 0; l < len; ++l) {
        float* row = ys + l * inner;
        isa_.binary(EltOp::copy, 0, row, xs + l * inner, 1, inner);
        isa_.binary(EltOp::sub, 0, row, m, 1, inner);
        isa_.unary(EltOp::exp, 0, 0, row, inner);
        isa_.accumulate(0, s, row, inner);
      }
      for (int64_t l = 0; l < len; ++l) isa_.binary(EltOp::div, 0, ys + l * inner, s, 1, inner);
    });
  }

 private:
  void log_softmax(const float* x, float* y, int64_t o) const {
    const int64_t len = op_.length_, inner = op_.inner_;
    for (int64_t i = 0; i < inner; ++i) {
      const auto at = [&](int64_t l) { return (o * len + l) * inner + i; };
      float m = -INFINITY;
      for (int64_t l = 0; l < len; ++l) m = std::max(m, x[at(l)]);
      float s = 0;
      for (int64_t l = 0; l < len; ++l) s += std::exp(x[at(l)] - m);
      const float shift = m + std::log(s);
      for (int64_t l = 0; l < len; ++l) y[at(l)] = x[at(l)] - shift;
    }
  }

  const SoftmaxOp& op_;
  const IsaKernels& isa_;
  int passes_, threads_;
  Buffer scratch_;
};

std::unique_ptr<Kernel> SoftmaxOp::build(const sdk::Config& c) const {
  return std::make_unique<SoftmaxKernel>(*this, kernels_for(c[kIsa]), c[kPasses] == 1 ? 2 : 3,
                                         static_cast<int>(c[kThreads]));
}

// LayerNormalization (opset 17): rows of the dims from `axis` on, with
// Scale and optional B, and the optional Mean and InvStdDev outputs.
class LayerNormOp final : public CpuOp {
 public:
  enum Knob : size_t { kIsa, kStats, kThreads, kKnobCount };

  LayerNormOp(const sdk::OpTask& task, const HostCpu& host) : host_(host) {
    if (!task.fused_ops.empty()) unsupported("the cpu device fuses no ops after LayerNormalization");
    require_f32(task);
    // One input is what a decomposed layer norm without its affine part becomes.
    require_inputs(task, 1, 3);
    const Shape in = task.inputs[0].shape;
    for (const auto& t : task.inputs) inputs_.push_back(t.shape);
    const auto rank = static_cast<int64_t>(in.size());
    if (rank == 0) invalid("LayerNormalization takes an input of rank >= 1");
    const int64_t axis = normalize_axis(int_attr(task.attrs, "axis", -1), rank, "LayerNormalization");
    if (int_attr(task.attrs, "stash_type", 1) != 1) unsupported("LayerNormalization with stash_type other than float32");
    epsilon_ = static_cast<float>(float_attr(task.attrs, "epsilon", 1e-5));
    for (int64_t d = 0; d < rank; ++d) (d < axis ? rows_ : row_) *= in[static_cast<size_t>(d)];
    has_scale_ = task.inputs.size() > 1;
    has_bias_ = task.inputs.size() > 2;
    auto step_of = [&](const Shape& s, const char* what) -> int64_t {
      if (elements(s) == row_) return 1;
      if (elements(s) == 1) return 0;
      unsupported(std::string("LayerNormalization ") + what + " of " + to_string(s) + " for rows of " +
                  std::to_string(row_));
    };
    if (has_scale_) scale_step_ = step_of(inputs_[1], "Scale");
    if (has_bias_) bias_step_ = step_of(inputs_[2], "B");
    Shape stats(in.begin(), in.begin() + axis);
    stats.resize(in.size(), 1);
    outputs_ = {in};
    // Mean and InvStdDev only when the node asks for them.
    for (size_t i = 1; i < std::min<size_t>(task.outputs.size(), 3); ++i) outputs_.push_back(stats);

    space_ = isa_way_threads_space(host, "statistics", {"two_pass", "welford"}, static_cast<double>(elements(in)) * 1.0);
  }

  std::string check(const sdk::Config& c) const override { return isa_refusal(host_, c[kIsa]); }
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;

  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override {
    const float* x = inputs[0];
    for (int64_t r = 0; r < rows_; ++r) {
      const float* xr = x + r * row_;
      double mean = 0, var = 0;
      for (int64_t i = 0; i < row_; ++i) mean += xr[i];
      mean /= static_cast<double>(row_);
      for (int64_t i = 0; i < row_; ++i) var += (xr[i] - mean) * (xr[i] - mean);
      var /= static_cast<double>(row_);
      const double inv = 1 / std::sqrt(var + epsilon_);
      for (int64_t i = 0; i < row_; ++i) {
        double v = (xr[i] - mean) * inv * (has_scale_ ? inputs[1][i * scale_step_] : 1.0);
        if (has_bias_) v += inputs[2][i * bias_step_];
        outputs[0][r * row_ + i] = static_cast<float>(v);
      }
      if (outputs.size() > 1) outputs[1][r] = static_cast<float>(mean);
      if (outputs.size() > 2) outputs[2][r] = static_cast<float>(inv);
    }
  }

 private:
  friend class LayerNormKernel;
  const HostCpu& host_;
  int64_t rows_ = 1, row_ = 1;
  float epsilon_ = 1e-5f;
  bool has_scale_ = true, has_bias_ = false;
  int64_t scale_step_ = 1, bias_step_ = 1;
};

class LayerNormKernel final : public BufferKernel {
 public:
  LayerNormKernel(const LayerNormOp& op, const IsaKernels& isa, bool welford, int threads)
      : BufferKernel(op), op_(op), isa_(isa), welford_(welford), threads_(threads) {}

  void run(ThreadPool& pool) override {
    const float* x = inputs_[0];
    const float one = 1.0f;
    const float* scale = op_.has_scale_ ? inputs_[1] : &one;
    const int64_t scale_step = op_.has_scale_ ? op_.scale_step_ : 0;
    const float* bias = op_.has_bias_ ? inputs_[2] : nullptr;
    float* y = outputs_[0].data();
    float* mean_out = outputs_.size() > 1 ? outputs_[1].data() : nullptr;
    float* inv_out = outputs_.size() > 2 ? outputs_[2].data() : nullptr;
    const int64_t row = op_.row_, per = rows_per_task(row);
    pool.run((op_.rows_ + per - 1) / per, threads_, [&](int64_t t, int) {
      for (int64_t r = t * per; r < std::min(op_.rows_, (t + 1) * per); ++r) {
        float mean, inv_std;
        isa_.moments(x + r * row, row, op_.epsilon_, welford_ ? 1 : 0, &mean, &inv_std);
        isa_.normalize(x + r * row, y + r * row, row, mean, inv_std, scale, scale_step, bias, op_.bias_step_);
        if (mean_out) mean_out[r] = mean;
        if (inv_out) inv_out[r] = inv_std;
      }
    });
  }

 private:
  const LayerNormOp& op_;
  const IsaKernels& isa_;
  bool welford_;
  int threads_;
};

std::unique_ptr<Kernel> LayerNormOp::build(const sdk::Config& c) const {
  return std::make_unique<LayerNormKernel>(*this, kernels_for(c[kIsa]), c[kStats] == 1, static_cast<int>(c[kThreads]));
}

}  // namespace

std::unique_ptr<CpuOp> make_norm_op(const sdk::OpTask& task, const HostCpu& host) {
  if (task.op_type == "LayerNormalization") return std::make_unique<LayerNormOp>(task, host);
  return std::make_unique<SoftmaxOp>(task, host);
}

}  // namespace aoe::cpu
