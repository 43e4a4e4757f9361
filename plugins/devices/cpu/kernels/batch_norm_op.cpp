// Inference BatchNormalization that no Conv folds: per channel y = x * a + b,
// a = scale / sqrt(var + epsilon) and b = B - mean * a, over N x C planes
// the threads share. In training (training_mode 1) each channel is
// normalised by its own batch mean and (population) variance, and the
// optional running_mean and running_var outputs blend the given statistics
// with them: input * momentum + batch * (1 - momentum).
#include "op_factories.h"

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "cpu_op.h"
#include "isa.h"
#include "op_util.h"
#include "threaded_op.h"
#include "threads_kernel.h"

namespace aoe::cpu {
namespace {

// N x C x ...: the five inputs, each statistic one value per channel; the
// epsilon. Shared by both modes.
struct BatchNormShapes {
  int64_t batch = 1, channels = 1, plane = 1;
  double epsilon = 1e-5;
};

BatchNormShapes batch_norm_shapes(const sdk::OpTask& task) {
  const std::string who = "BatchNormalization '" + task.name + "'";
  if (!task.fused_ops.empty()) unsupported("the cpu device fuses no ops after BatchNormalization");
  require_f32(task);
  require_inputs(task, 5, 5);
  const Shape x = task.inputs[0].shape;
  if (x.size() < 2) invalid(who + " takes N x C x ... input, not " + to_string(x));
  BatchNormShapes s;
  s.batch = x[0];
  s.channels = x[1];
  s.plane = elements(x) / std::max<int64_t>(1, s.batch * s.channels);
  for (size_t i = 1; i < 5; ++i)
    if (task.inputs[i].shape != Shape{s.channels})
      invalid(who + " input " + std::to_string(i) + " is " + to_string(task.inputs[i].shape) +
              ", expected one value per channel [" + std::to_string(s.channels) + "]");
  if (!task.outputs.empty() && task.outputs[0].shape != x)
    invalid(who + " output is " + to_string(task.outputs[0].shape) + ", expected " + to_string(x));
  s.epsilon = float_attr(task.attrs, "epsilon", 1e-5);
  if (!(s.epsilon >= 0)) invalid(who + " epsilon must be >= 0");
  return s;
}

class BatchNormOp final : public CpuOp {
 public:
  enum Knob : size_t { kThreads, kKnobCount };

  BatchNormOp(const sdk::OpTask& task, const HostCpu& host) {
    const auto s = batch_norm_shapes(task);
    if (task.outputs.size() > 1)
      invalid("BatchNormalization '" + task.name + "' at inference gives one output, the task lists " + std::to_string(task.outputs.size()));
    const Shape x = task.inputs[0].shape;
    batch_ = s.batch, channels_ = s.channels, plane_ = s.plane, epsilon_ = s.epsilon;
    for (const auto& t : task.inputs) inputs_.push_back(t.shape);
    outputs_ = {x};
    space_ = threads_space(host, static_cast<double>(elements(x)));
    isa_ = &kernels_for(static_cast<int64_t>(host.best_isa()));
  }
  ValueRange input_range(size_t i) const override { return i == 4 ? ValueRange{0.5f, 2.0f} : ValueRange{}; }

  std::string check(const sdk::Config&) const override { return {}; }
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;

  // y = (x - mean) / sqrt(var + epsilon) * scale + B, as ONNX defines it.
  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    for (int64_t n = 0; n < batch_; ++n)
      for (int64_t c = 0; c < channels_; ++c)
        for (int64_t i = 0; i < plane_; ++i) {
          const int64_t at = (n * channels_ + c) * plane_ + i;
          const double v = (in[0][at] - static_cast<double>(in[3][c])) / std::sqrt(static_cast<double>(in[4][c]) + epsilon_);
          out[0][at] = static_cast<float>(v * in[1][c] + in[2][c]);
        }
  }

 private:
  friend class BatchNormKernel;
  int64_t batch_ = 1, channels_ = 1, plane_ = 1;
  double epsilon_ = 1e-5;
  const IsaKernels* isa_ = nullptr;  // the CPU's widest
};

class BatchNormKernel final : public ThreadsKernel<BatchNormOp> {
 public:
  BatchNormKernel(const BatchNormOp& op, int threads)
      : ThreadsKernel(op, threads), a_(op.channels_), b_(op.channels_) {}

  void run(ThreadPool& pool) override {
    const int64_t c_count = op_.channels_, plane = op_.plane_;
    const float *scale = inputs_[1], *bias = inputs_[2], *mean = inputs_[3], *var = inputs_[4];
    for (int64_t c = 0; c < c_count; ++c) {
      a_.data()[c] = scale[c] / std::sqrt(var[c] + static_cast<float>(op_.epsilon_));
      b_.data()[c] = bias[c] - mean[c] * a_.data()[c];
    }
    const float* x = inputs_[0];
    float* y = outputs_[0].data();
    pool.run(op_.batch_ * c_count, threads_, [&](int64_t p, int) {
      const float a = a_.data()[p % c_count], b = b_.data()[p % c_count];
      const float* xs = x + p * plane;
      float* ys = y + p * plane;
      // (x - 0) * 1 * a + b in the CPU's widest vectors.
      op_.isa_->normalize(xs, ys, plane, 0.0f, 1.0f, &a, 0, &b, 0);
    });
  }

 private:
  Buffer a_, b_;
};

std::unique_ptr<Kernel> BatchNormOp::build(const sdk::Config& c) const { return threads_kernel<BatchNormKernel>(*this, c); }

class BatchNormTrainingModeOp final : public ThreadedOp {
 public:
  BatchNormTrainingModeOp(const sdk::OpTask& task, const HostCpu& host) {
    const auto s = batch_norm_shapes(task);
    batch_ = s.batch, channels_ = s.channels, plane_ = s.plane, epsilon_ = s.epsilon;
    momentum_ = float_attr(task.attrs, "momentum", 0.9);
    if (task.outputs.size() != 1 && task.outputs.size() != 3)
      invalid("BatchNormalization '" + task.name + "' in training gives Y, or Y, running_mean and running_var; the task lists " +
              std::to_string(task.outputs.size()) + " outputs");
    for (size_t i = 1; i < task.outputs.size(); ++i)
      if (task.outputs[i].shape != Shape{channels_})
        invalid("BatchNormalization '" + task.name + "' output '" + task.outputs[i].name + "' is " + to_string(task.outputs[i].shape) +
                ", expected one value per channel [" + std::to_string(channels_) + "]");
    running_ = task.outputs.size() != 1;
    std::vector<Shape> outputs = {task.inputs[0].shape};
    if (running_) outputs.push_back({channels_}), outputs.push_back({channels_});
    set_shapes(task, outputs, host, static_cast<double>(batch_ * channels_ * plane_) * 2.0);
  }
  ValueRange input_range(size_t i) const override { return i == 4 ? ValueRange{0.5f, 2.0f} : ValueRange{}; }

  // A task per channel: its mean, then its variance about it (two passes, each
  // plane's sum in float, the planes' in double), then y over its planes.
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override {
    const int64_t channels = channels_, plane = plane_;
    const double count = static_cast<double>(std::max<int64_t>(1, batch_ * plane));
    pool.run(channels, threads, [&](int64_t c, int) {
      double sum = 0.0;
      for (int64_t n = 0; n < batch_; ++n) sum += sum8(in[0] + (n * channels + c) * plane, plane);
      const float mean = static_cast<float>(sum / count);
      double squares = 0.0;
      for (int64_t n = 0; n < batch_; ++n) {
        const float* x = in[0] + (n * channels + c) * plane;
        float acc = 0.0f;
        for (int64_t i = 0; i < plane; ++i) acc += (x[i] - mean) * (x[i] - mean);
        squares += acc;
      }
      const double var = squares / count;
      const float a = static_cast<float>(in[1][c] / std::sqrt(var + epsilon_)), b = in[2][c] - mean * a;
      for (int64_t n = 0; n < batch_; ++n) {
        const float* x = in[0] + (n * channels + c) * plane;
        float* y = out[0] + (n * channels + c) * plane;
        for (int64_t i = 0; i < plane; ++i) y[i] = x[i] * a + b;
      }
      if (running_) {
        out[1][c] = static_cast<float>(in[3][c] * momentum_ + mean * (1.0 - momentum_));
        out[2][c] = static_cast<float>(in[4][c] * momentum_ + var * (1.0 - momentum_));
      }
    });
  }

  // As ONNX defines it: the batch's mean and population variance per channel,
  // y = (x - mean) / sqrt(var + epsilon) * scale + B, the running statistics blended.
  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    const double count = static_cast<double>(std::max<int64_t>(1, batch_ * plane_));
    for (int64_t c = 0; c < channels_; ++c) {
      double mean = 0.0, var = 0.0;
      for (int64_t n = 0; n < batch_; ++n)
        for (int64_t i = 0; i < plane_; ++i) mean += in[0][(n * channels_ + c) * plane_ + i];
      mean /= count;
      for (int64_t n = 0; n < batch_; ++n)
        for (int64_t i = 0; i < plane_; ++i) {
          const double d = in[0][(n * channels_ + c) * plane_ + i] - mean;
          var += d * d;
        }
      var /= count;
      for (int64_t n = 0; n < batch_; ++n)
        for (int64_t i = 0; i < plane_; ++i) {
          const int64_t at = (n * channels_ + c) * plane_ + i;
          out[0][at] = static_cast<float>((in[0][at] - mean) / std::sqrt(var + epsilon_) * in[1][c] + in[2][c]);
        }
      if (running_) {
        out[1][c] = static_cast<float>(in[3][c] * momentum_ + mean * (1.0 - momentum_));
        out[2][c] = static_cast<float>(in[4][c] * momentum_ + var * (1.0 - momentum_));
      }
    }
  }

 private:
  int64_t batch_ = 1, channels_ = 1, plane_ = 1;
  double epsilon_ = 1e-5, momentum_ = 0.9;
  bool running_ = false;  // the running_mean and running_var outputs
};

}  // namespace

std::unique_ptr<CpuOp> make_batch_norm_op(const sdk::OpTask& task, const HostCpu& host) {
  if (int_attr(task.attrs, "training_mode", 0) != 0) return std::make_unique<BatchNormTrainingModeOp>(task, host);
  return std::make_unique<BatchNormOp>(task, host);
}

}  // namespace aoe::cpu
