#include "batch_norm_op.h"

#include <cmath>

#include "buffer_kernel.h"
#include "isa.h"
#include "op_util.h"

namespace aoe::cpu {

class BatchNormKernel final : public BufferKernel {
 public:
  BatchNormKernel(const BatchNormOp& op, int threads)
      : BufferKernel(op), op_(op), threads_(threads), a_(op.channels_), b_(op.channels_) {}

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
  const BatchNormOp& op_;
  int threads_;
  Buffer a_, b_;
};

BatchNormOp::BatchNormOp(const sdk::OpTask& task, const HostCpu& host) {
  if (!task.fused_ops.empty()) unsupported("the cpu device fuses no ops after BatchNormalization");
  if (int_attr(task.attrs, "training_mode", 0) != 0)
    unsupported("the cpu device runs inference BatchNormalization only (training_mode 0)");
  require_f32(task);
  require_inputs(task, 5, 5);
  const Shape x = task.inputs[0].shape;
  if (x.size() < 2) invalid("BatchNormalization '" + task.name + "' takes N x C x ... input, not " + to_string(x));
  batch_ = x[0];
  channels_ = x[1];
  plane_ = elements(x) / std::max<int64_t>(1, batch_ * channels_);
  for (size_t i = 1; i < 5; ++i)
    if (task.inputs[i].shape != Shape{channels_})
      invalid("BatchNormalization '" + task.name + "' input " + std::to_string(i) + " is " +
              to_string(task.inputs[i].shape) + ", expected one value per channel [" + std::to_string(channels_) + "]");
  if (task.outputs.size() > 1) unsupported("the cpu device runs inference BatchNormalization only (one output)");
  if (!task.outputs.empty() && task.outputs[0].shape != x)
    invalid("BatchNormalization '" + task.name + "' output is " + to_string(task.outputs[0].shape) + ", expected " + to_string(x));
  epsilon_ = float_attr(task.attrs, "epsilon", 1e-5);
  if (!(epsilon_ >= 0)) invalid("BatchNormalization '" + task.name + "' epsilon must be >= 0");
  for (const auto& t : task.inputs) inputs_.push_back(t.shape);
  outputs_ = {x};
  space_ = threads_space(host, static_cast<double>(elements(x)));
  isa_ = &kernels_for(static_cast<int64_t>(host.best_isa()));
}

std::string BatchNormOp::check(const sdk::Config&) const { return {}; }

std::unique_ptr<Kernel> BatchNormOp::build(const sdk::Config& c) const {
  return std::make_unique<BatchNormKernel>(*this, static_cast<int>(c[kThreads]));
}

// y = (x - mean) / sqrt(var + epsilon) * scale + B, as ONNX defines it.
void BatchNormOp::reference(const std::vector<const float*>& in, const std::vector<float*>& out) const {
  for (int64_t n = 0; n < batch_; ++n)
    for (int64_t c = 0; c < channels_; ++c)
      for (int64_t i = 0; i < plane_; ++i) {
        const int64_t at = (n * channels_ + c) * plane_ + i;
        const double v = (in[0][at] - static_cast<double>(in[3][c])) / std::sqrt(static_cast<double>(in[4][c]) + epsilon_);
        out[0][at] = static_cast<float>(v * in[1][c] + in[2][c]);
      }
}

}  // namespace aoe::cpu
