// Range: start, start + delta, ... below limit, of any dtype the device
// holds; start and delta read as the model runs, the count the output's
// extent (static shapes: the frontend knows it where they are constants).
#include "op_factories.h"

#include <memory>
#include <string>
#include <vector>

#include "buffer_kernel.h"
#include "cpu_op.h"
#include "held_dtype.h"
#include "op_util.h"

namespace aoe::cpu {
namespace {

class RangeOp final : public CpuOp {
 public:
  RangeOp(const sdk::OpTask& task, const HostCpu& host) {
    (void)host;
    const std::string who = "Range '" + task.name + "'";
    require_plain(task, 3, 3, {}, Takes::held);
    for (const auto& t : task.inputs)
      if (elements(t.shape) != 1) invalid(who + ": start, limit and delta are one value each");
    if (task.outputs.empty() || !task.outputs[0].fully_known() || task.outputs[0].shape.size() != 1)
      unsupported(who + ": the cpu device takes the count from its output's shape, known where start, limit and delta are constants");
    for (const auto& t : task.inputs) inputs_.push_back(t.shape);
    outputs_ = {task.outputs[0].shape};
    space_.version = "1";
  }

  std::string check(const sdk::Config&) const override { return {}; }
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;

  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    for (int64_t i = 0; i < outputs_[0][0]; ++i)
      out[0][i] = static_cast<float>(static_cast<double>(in[0][0]) + static_cast<double>(i) * in[2][0]);
  }
};

class RangeKernel final : public BufferKernel {
 public:
  explicit RangeKernel(const RangeOp& op) : BufferKernel(op) {}
  void run(ThreadPool&) override {
    const float start = inputs_[0][0], delta = inputs_[2][0];
    float* y = outputs_[0].data();
    for (int64_t i = 0; i < outputs_[0].size(); ++i) y[i] = start + static_cast<float>(i) * delta;
  }
};

std::unique_ptr<Kernel> RangeOp::build(const sdk::Config&) const { return std::make_unique<RangeKernel>(*this); }

}  // namespace

std::unique_ptr<CpuOp> make_range_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<RangeOp>(task, host);
}

}  // namespace aoe::cpu
