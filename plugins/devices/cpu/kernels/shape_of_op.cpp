#include "shape_of_op.h"

#include <algorithm>

#include "buffer_kernel.h"
#include "held_dtype.h"
#include "op_util.h"

namespace aoe::cpu {

class ShapeOfKernel final : public BufferKernel {
 public:
  explicit ShapeOfKernel(const ShapeOfOp& op) : BufferKernel(op), op_(op) {}
  void run(ThreadPool&) override { std::copy(op_.values_.begin(), op_.values_.end(), outputs_[0].data()); }
  // Footprint: the input is never read.
  Footprint footprint() const override { return {{outputs_[0].data(), outputs_[0].bytes()}}; }

 private:
  const ShapeOfOp& op_;
};

ShapeOfOp::ShapeOfOp(const sdk::OpTask& task, const HostCpu& host) {
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

std::string ShapeOfOp::check(const sdk::Config&) const { return {}; }

std::unique_ptr<Kernel> ShapeOfOp::build(const sdk::Config&) const { return std::make_unique<ShapeOfKernel>(*this); }

void ShapeOfOp::reference(const std::vector<const float*>&, const std::vector<float*>& out) const {
  const Shape& in = inputs_[0];
  if (values_.size() == 1 && outputs_[0].empty()) {
    out[0][0] = static_cast<float>(elements(in));
    return;
  }
  for (size_t i = 0; i < values_.size(); ++i) out[0][i] = values_[i];
}

}  // namespace aoe::cpu
