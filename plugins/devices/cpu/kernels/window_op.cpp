#include "window_op.h"

#include <algorithm>
#include <cmath>

#include "buffer_kernel.h"
#include "op_util.h"

namespace aoe::cpu {

class WindowKernel final : public BufferKernel {
 public:
  WindowKernel(const WindowOp& op, int threads) : BufferKernel(op), op_(op), threads_(threads) {}

  void run(ThreadPool& pool) override {
    const int64_t n = outputs_[0].size();
    float* y = outputs_[0].data();
    const float step = static_cast<float>(2 * M_PI / op_.period_);
    const float a0 = static_cast<float>(op_.a0_), a1 = static_cast<float>(op_.a1_), a2 = static_cast<float>(op_.a2_);
    constexpr int64_t kChunk = 4096;
    pool.run(ceil_div(n, kChunk), threads_, [&](int64_t task, int) {
      for (int64_t i = task * kChunk, end = std::min(n, i + kChunk); i < end; ++i) {
        const float angle = step * static_cast<float>(i);
        y[i] = a0 - a1 * std::cos(angle) + a2 * std::cos(2 * angle);
      }
    });
  }

 private:
  const WindowOp& op_;
  int threads_;
};

WindowOp::WindowOp(const sdk::OpTask& task, const HostCpu& host) {
  const std::string who = task.op_type + " '" + task.name + "'";
  if (!task.fused_ops.empty()) unsupported("the cpu device fuses no ops after " + task.op_type);
  require_f32(task, {0});
  require_inputs(task, 1, 1);
  if (int_attr(task.attrs, "output_datatype", 1) != 1) unsupported(who + ": the cpu device writes float32 windows only");
  if (task.outputs.empty() || !task.outputs[0].fully_known() || task.outputs[0].shape.size() != 1)
    unsupported(who + ": the cpu device takes the size from its output's shape, which the task does not give");
  const int64_t size = task.outputs[0].shape[0];
  if (task.op_type == "HammingWindow") a0_ = 25.0 / 46.0, a1_ = 1 - a0_;
  else if (task.op_type == "BlackmanWindow") a0_ = 0.42, a1_ = 0.5, a2_ = 0.08;
  period_ = static_cast<double>(int_attr(task.attrs, "periodic", 1) != 0 ? size : size - 1);
  if (period_ < 1) period_ = 1;  // one point: cos(0)
  inputs_ = {task.inputs[0].shape};
  outputs_ = {{size}};
  space_ = threads_space(host, static_cast<double>(size) * 20);
}

std::string WindowOp::check(const sdk::Config&) const { return {}; }

std::unique_ptr<Kernel> WindowOp::build(const sdk::Config& c) const {
  return std::make_unique<WindowKernel>(*this, static_cast<int>(c[kThreads]));
}

// The definition in double, point by point.
void WindowOp::reference(const std::vector<const float*>&, const std::vector<float*>& out) const {
  for (int64_t i = 0; i < outputs_[0][0]; ++i) {
    const double x = 2 * M_PI * static_cast<double>(i) / period_;
    out[0][i] = static_cast<float>(a0_ - a1_ * std::cos(x) + a2_ * std::cos(2 * x));
  }
}

}  // namespace aoe::cpu
