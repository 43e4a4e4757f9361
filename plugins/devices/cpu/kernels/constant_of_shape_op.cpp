// ConstantOfShape whose shape is computed as the model runs (a constant one
// the frontend folds): its output, of the shape the run gives it, holds the
// one value of its `value` attribute (0 without it); the shape input's values
// are not read.
#include "op_factories.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "op_util.h"
#include "threaded_op.h"

namespace aoe::cpu {
namespace {

class ConstantOfShapeOp final : public ThreadedOp {
 public:
  ConstantOfShapeOp(const sdk::OpTask& task, const HostCpu& host) {
    const std::string who = "ConstantOfShape '" + task.name + "'";
    if (!task.fused_ops.empty()) unsupported("the cpu device fuses no ops after ConstantOfShape");
    require_dtypes(task, Takes::held, {0});
    require_inputs(task, 1, 1);
    if (task.outputs.size() != 1 || !task.outputs[0].fully_known())
      unsupported(who + ": the cpu device takes the shape from its output's, which the task does not give");
    if (task.attrs.contains("value")) {
      const auto& value = task.attrs.at("value");
      if (!value.is_object() || !value.contains("values") || value.at("values").size() != 1)
        unsupported(who + ": its value attribute carries no one value the cpu device can read");
      value_ = value.at("values").at(0).get<float>();
    }
    inputs_ = {task.inputs[0].shape};
    outputs_ = {task.outputs[0].shape};
    space_ = threads_space(host, static_cast<double>(elements(outputs_[0])) * 0.25);
  }

  void compute(const std::vector<const float*>&, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override {
    const int64_t n = elements(output_shapes()[0]), chunk = 1 << 16;
    pool.run((n + chunk - 1) / chunk, threads, [&](int64_t c, int) {
      std::fill(out[0] + c * chunk, out[0] + std::min(n, (c + 1) * chunk), value_);
    });
  }

  void reference(const std::vector<const float*>&, const std::vector<float*>& out) const override {
    for (int64_t i = 0; i < elements(outputs_[0]); ++i) out[0][i] = value_;
  }

 private:
  float value_ = 0.0f;
};

}  // namespace

std::unique_ptr<CpuOp> make_constant_of_shape_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<ConstantOfShapeOp>(task, host);
}

}  // namespace aoe::cpu
