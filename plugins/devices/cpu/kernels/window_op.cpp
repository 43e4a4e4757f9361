// HannWindow, HammingWindow and BlackmanWindow (opset 17): a float32
// window of `size` points, periodic (the default) or symmetric. The size
// is an integer constant of the model: the output's extent gives it.
#include "op_factories.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "op_util.h"
#include "threaded_op.h"

namespace aoe::cpu {
namespace {

class WindowOp final : public ThreadedOp {
 public:
  WindowOp(const sdk::OpTask& task, const HostCpu& host) {
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

  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override {
    const int64_t n = elements(output_shapes()[0]);
    float* y = out[0];
    const float step = static_cast<float>(2 * M_PI / period_);
    const float a0 = static_cast<float>(a0_), a1 = static_cast<float>(a1_), a2 = static_cast<float>(a2_);
    constexpr int64_t kChunk = 4096;
    pool.run(ceil_div(n, kChunk), threads, [&](int64_t task, int) {
      for (int64_t i = task * kChunk, end = std::min(n, i + kChunk); i < end; ++i) {
        const float angle = step * static_cast<float>(i);
        y[i] = a0 - a1 * std::cos(angle) + a2 * std::cos(2 * angle);
      }
    });
  }

  // The definition in double, point by point.
  void reference(const std::vector<const float*>&, const std::vector<float*>& out) const override {
    for (int64_t i = 0; i < outputs_[0][0]; ++i) {
      const double x = 2 * M_PI * static_cast<double>(i) / period_;
      out[0][i] = static_cast<float>(a0_ - a1_ * std::cos(x) + a2_ * std::cos(2 * x));
    }
  }

 private:
  // a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N), N the size (periodic) or the size - 1.
  double a0_ = 0.5, a1_ = 0.5, a2_ = 0.0, period_ = 1;
};

}  // namespace

std::unique_ptr<CpuOp> make_window_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<WindowOp>(task, host);
}

}  // namespace aoe::cpu
