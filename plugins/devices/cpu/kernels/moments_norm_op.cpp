// Normalisations by the mean and variance over a set of axes, one pair per
// position of the others: InstanceNormalization (over the spatial axes of
// N x C x ..., then scale and B per channel; epsilon inside the root) and
// MeanVarianceNormalization (over `axes`, default N, H, W: (x - mean) /
// (sqrt(variance) + 1e-9), as ONNX's function defines it).
#include "op_factories.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "cpu_op.h"
#include "op_util.h"
#include "reference.h"
#include "threads_kernel.h"

namespace aoe::cpu {
namespace {

class MomentsNormOp final : public CpuOp {
 public:
  enum Knob : size_t { kThreads, kKnobCount };

  MomentsNormOp(const sdk::OpTask& task, const HostCpu& host) : instance_(task.op_type == "InstanceNormalization") {
    const std::string who = task.op_type + " '" + task.name + "'";
    if (!task.fused_ops.empty()) unsupported("the cpu device fuses no ops after " + task.op_type);
    require_f32(task);
    require_inputs(task, instance_ ? 3 : 1, instance_ ? 3 : 1);
    const Shape in = task.inputs[0].shape;
    const auto rank = static_cast<int64_t>(in.size());
    std::vector<int64_t> axes;
    if (instance_) {
      if (rank < 3) invalid(who + " takes N x C x spatial input");
      for (size_t i = 1; i < 3; ++i)
        if (task.inputs[i].shape != Shape{in[1]}) invalid(who + ": input " + std::to_string(i) + " must hold one value per channel");
      for (int64_t a = 2; a < rank; ++a) axes.push_back(a);
      epsilon_ = float_attr(task.attrs, "epsilon", 1e-5);
    } else {
      if (rank < 1) invalid(who + " takes a tensor of rank 1 or more");
      axes = ints_attr(task.attrs, "axes", {0, 2, 3});
    }
    reduced_.assign(in.size(), false);
    for (int64_t a : axes) reduced_[static_cast<size_t>(normalize_axis(a, rank, who))] = true;
    for (size_t d = 0; d < in.size(); ++d) {
      kept_.push_back(reduced_[d] ? 1 : in[d]);
      if (reduced_[d]) count_ *= in[d];
    }
    kept_steps_ = strides_of(kept_);
    for (size_t d = 0; d < in.size(); ++d)
      if (reduced_[d]) kept_steps_[d] = 0;
    // The reduced axes the last ones (every InstanceNormalization): each mean's values a contiguous row.
    const auto first = std::find(reduced_.begin(), reduced_.end(), true);
    rows_ = first != reduced_.end() && std::all_of(first, reduced_.end(), [](bool r) { return r; });
    isa_ = &kernels_for(static_cast<int64_t>(host.best_isa()));
    for (const auto& t : task.inputs) inputs_.push_back(t.shape);
    outputs_ = {in};
    require_output_shape(task, in);
    space_ = threads_space(host, static_cast<double>(elements(in)) * 2.0);
  }

  std::string check(const sdk::Config&) const override { return {}; }
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;

  // The mean, then the variance about it, per kept position; then each element.
  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    const Shape& x = inputs_[0];
    if (elements(x) == 0) return;
    const auto kept_strides = strides_of(kept_);
    std::vector<double> mean(static_cast<size_t>(elements(kept_)), 0.0), var(mean.size(), 0.0);
    auto kept_at = [&](const std::vector<int64_t>& index) {
      size_t at = 0;
      for (size_t d = 0; d < x.size(); ++d) at += static_cast<size_t>((reduced_[d] ? 0 : index[d]) * kept_strides[d]);
      return at;
    };
    for_each_index(x, [&](const std::vector<int64_t>& index, int64_t flat) { mean[kept_at(index)] += in[0][flat]; });
    for (auto& m : mean) m /= static_cast<double>(count_);
    for_each_index(x, [&](const std::vector<int64_t>& index, int64_t flat) {
      const double d = in[0][flat] - mean[kept_at(index)];
      var[kept_at(index)] += d * d;
    });
    for (auto& v : var) v /= static_cast<double>(count_);
    std::vector<double> y(static_cast<size_t>(elements(x)));
    for_each_index(x, [&](const std::vector<int64_t>& index, int64_t flat) {
      const size_t k = kept_at(index);
      double v = instance_ ? (in[0][flat] - mean[k]) / std::sqrt(var[k] + epsilon_) : (in[0][flat] - mean[k]) / (std::sqrt(var[k]) + 1e-9);
      if (instance_) v = v * in[1][index[1]] + in[2][index[1]];
      y[static_cast<size_t>(flat)] = v;
    });
    store(y, out[0]);
  }

 private:
  friend class MomentsNormKernel;
  bool instance_ = false;
  double epsilon_ = 1e-5;
  std::vector<bool> reduced_;        // per axis
  Shape kept_;                       // the input with each reduced axis 1
  std::vector<int64_t> kept_steps_;  // per axis: its stride among the kept positions, 0 where reduced
  int64_t count_ = 1;                // elements per mean
  bool rows_ = false;                // the reduced axes are the last: a row of count_ per kept position
  const IsaKernels* isa_ = nullptr;
};

class MomentsNormKernel final : public ThreadsKernel<MomentsNormOp> {
 public:
  MomentsNormKernel(const MomentsNormOp& op, int threads)
      : ThreadsKernel(op, threads), kept_(elements(op.kept_)) {
    sums_.assign(static_cast<size_t>(2 * kept_ * threads), 0.0);
    shift_.resize(static_cast<size_t>(kept_));
    scale_.resize(static_cast<size_t>(kept_));
  }

  void run(ThreadPool& pool) override {
    if (elements(op_.input_shapes()[0]) == 0) return;
    if (op_.rows_) normalize_rows(pool);
    else normalize_strided(pool);
  }

 private:
  // A task per kept position: its row's moments in two vector passes, then
  // the row scaled and shifted, as a layer norm's rows are.
  void normalize_rows(ThreadPool& pool) {
    const Shape& in = op_.input_shapes()[0];
    const int64_t n = op_.count_, channels = op_.instance_ ? in[1] : 1;
    const float* x = inputs_[0];
    float* y = outputs_[0].data();
    const float* gamma = op_.instance_ ? inputs_[1] : nullptr;
    const float* beta = op_.instance_ ? inputs_[2] : nullptr;
    const float epsilon = op_.instance_ ? static_cast<float>(op_.epsilon_) : 0.0f;
    pool.run(kept_, threads_, [&](int64_t r, int) {
      float mean = 0, inv_std = 0;
      op_.isa_->moments(x + r * n, n, epsilon, 0, &mean, &inv_std);
      if (op_.instance_) {
        const int64_t c = r % channels;  // kept positions are N x C
        op_.isa_->normalize(x + r * n, y + r * n, n, mean, inv_std, gamma + c, 0, beta + c, 0);
        return;
      }
      const float scale = 1.0f / (1.0f / inv_std + 1e-9f), one = 1.0f;  // ONNX's 1 / (sqrt(var) + 1e-9)
      op_.isa_->normalize(x + r * n, y + r * n, n, mean, scale, &one, 0, nullptr, 0);
    });
  }

  // Rows of the last axis: each row's first kept position, and its step
  // along the row (0 where the last axis is reduced).
  void normalize_strided(ThreadPool& pool) {
    const Shape& in = op_.input_shapes()[0];
    const int64_t total = elements(in);
    const size_t rank = in.size();
    const int64_t cols = in[rank - 1], rows = total / cols, step = op_.kept_steps_[rank - 1];
    const float* x = inputs_[0];
    float* y = outputs_[0].data();
    auto row_base = [&](int64_t r) {
      int64_t k = 0;
      for (size_t a = rank - 1; a-- > 0;) k += r % in[a] * op_.kept_steps_[a], r /= in[a];
      return k;
    };
    // Each thread sums into its own partials, in double: a mean of many values keeps its precision.
    std::fill(sums_.begin(), sums_.end(), 0.0);
    pool.run(rows, threads_, [&](int64_t r, int thread) {
      double* s = sums_.data() + 2 * kept_ * thread;
      const float* row = x + r * cols;
      const int64_t k = row_base(r);
      for (int64_t c = 0; c < cols; ++c) {
        const double v = row[c];
        s[2 * (k + c * step)] += v;
        s[2 * (k + c * step) + 1] += v * v;
      }
    });
    const float* gamma = op_.instance_ ? inputs_[1] : nullptr;
    const float* beta = op_.instance_ ? inputs_[2] : nullptr;
    const int64_t channels = op_.instance_ ? in[1] : 1;
    for (int64_t k = 0; k < kept_; ++k) {
      double sum = 0, squares = 0;
      for (int t = 0; t < threads_; ++t) sum += sums_[static_cast<size_t>(2 * (kept_ * t + k))], squares += sums_[static_cast<size_t>(2 * (kept_ * t + k) + 1)];
      const double mean = sum / static_cast<double>(op_.count_);
      const double var = std::max(0.0, squares / static_cast<double>(op_.count_) - mean * mean);
      double s = op_.instance_ ? 1.0 / std::sqrt(var + op_.epsilon_) : 1.0 / (std::sqrt(var) + 1e-9);
      double b = -mean * s;
      if (op_.instance_) {
        const int64_t c = k % channels;  // kept positions are N x C
        s *= gamma[c];
        b = b * gamma[c] + beta[c];
      }
      scale_[static_cast<size_t>(k)] = static_cast<float>(s);
      shift_[static_cast<size_t>(k)] = static_cast<float>(b);
    }
    pool.run(rows, threads_, [&](int64_t r, int) {
      const float* row = x + r * cols;
      float* out = y + r * cols;
      const int64_t k = row_base(r);
      for (int64_t c = 0; c < cols; ++c) {
        const auto at = static_cast<size_t>(k + c * step);
        out[c] = row[c] * scale_[at] + shift_[at];
      }
    });
  }

  int64_t kept_;
  std::vector<double> sums_;
  std::vector<float> shift_, scale_;
};

std::unique_ptr<Kernel> MomentsNormOp::build(const sdk::Config& c) const { return threads_kernel<MomentsNormKernel>(*this, c); }

}  // namespace

std::unique_ptr<CpuOp> make_moments_norm_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<MomentsNormOp>(task, host);
}

}  // namespace aoe::cpu
