// Shape (start, end) and Size: what a static graph knows of its input,
// written as int64 values held as floats (held_dtype.h); the input's
// values are not read.
#include "op_factories.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "buffer_kernel.h"
#include "cpu_op.h"
#include "held_dtype.h"
#include "op_util.h"

namespace aoe::cpu {
namespace {

class ShapeOfOp final : public CpuOp {
 public:
  ShapeOfOp(const sdk::OpTask& task, const HostCpu& host) {
    (void)host;
    if (!task.fused_ops.empty()) unsupported("the cpu device fuses no ops after " + task.op_type);
    require_inputs(task, 1, 1);
    require_dtype(task, 0, true, Takes::integral);
    if (!task.inputs[0].fully_known()) invalid(task.op_type + " input 0 has unknown dims");
    const Shape in = task.inputs[0].shape;
    if (task.op_type == "Size") {
      values_ = {static_cast<float>(elements(in))};
      outputs_ = {Shape{}};
    } else {
      const auto rank = static_cast<int64_t>(in.size());
      const auto clamp = [&](int64_t v) { return std::clamp(v < 0 ? v + rank : v, int64_t{0}, rank); };
      const int64_t start = clamp(int_attr(task.attrs, "start", 0)), end = clamp(int_attr(task.attrs, "end", rank));
      for (int64_t a = start; a < end; ++a) values_.push_back(static_cast<float>(in[static_cast<size_t>(a)]));
      outputs_ = {Shape{static_cast<int64_t>(values_.size())}};
    }
    inputs_ = {in};
    require_output_shape(task, outputs_[0]);
    space_.version = "1";
  }

  std::string check(const sdk::Config&) const override { return {}; }
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;

  void reference(const std::vector<const float*>&, const std::vector<float*>& out) const override {
    const Shape& in = inputs_[0];
    if (values_.size() == 1 && outputs_[0].empty()) {
      out[0][0] = static_cast<float>(elements(in));
      return;
    }
    for (size_t i = 0; i < values_.size(); ++i) out[0][i] = values_[i];
  }

 private:
  friend class ShapeOfKernel;
  std::vector<float> values_;
};

class ShapeOfKernel final : public BufferKernel {
 public:
  explicit ShapeOfKernel(const ShapeOfOp& op) : BufferKernel(op), op_(op) {}
  void run(ThreadPool&) override { std::copy(op_.values_.begin(), op_.values_.end(), outputs_[0].data()); }
  // Footprint: the input is never read.
  Footprint footprint() const override { return {{outputs_[0].data(), outputs_[0].bytes()}}; }

 private:
  const ShapeOfOp& op_;
};

std::unique_ptr<Kernel> ShapeOfOp::build(const sdk::Config&) const { return std::make_unique<ShapeOfKernel>(*this); }

}  // namespace

std::unique_ptr<CpuOp> make_shape_of_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<ShapeOfOp>(task, host);
}

}  // namespace aoe::cpu
