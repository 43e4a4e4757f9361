// Where: out = condition ? X : Y, the three broadcast numpy's way, X and Y
// of any dtype the device holds. The condition is read as the model runs
// (a bool held as 0 or 1), or from attribute "condition" where the frontend
// folded a constant one.
#include "op_factories.h"

#include <memory>
#include <string>
#include <vector>

#include "held_dtype.h"
#include "op_util.h"
#include "reference.h"
#include "threaded_op.h"

namespace aoe::cpu {
namespace {

class WhereOp final : public ThreadedOp {
 public:
  WhereOp(const sdk::OpTask& task, const HostCpu& host) {
    const std::string who = "Where '" + task.name + "'";
    if (!task.fused_ops.empty()) unsupported("the cpu device fuses no ops after Where");
    require_inputs(task, 3, 3);
    require_dtype(task, 0, false, Takes::integral);
    require_dtypes(task, Takes::held, {0});
    require_same_dtype(task, {1, 2});
    // A constant condition the frontend folded; else read as the model runs.
    if (task.attrs.is_object() && task.attrs.contains("condition"))
      for (const auto v : folded_ints(task, 0, "condition")) condition_.push_back(v != 0 ? 1.0f : 0.0f);
    for (const auto& t : task.inputs) inputs_.push_back(t.shape);
    const Shape out = broadcast(inputs_, who);
    std::vector<Shape> aligned;
    for (const auto& s : inputs_) aligned.push_back(align_rank(s, out.size()));
    rows_ = BroadcastRows(out, aligned);
    outputs_ = {out};
    require_output_shape(task, out);
    space_ = threads_space(host, static_cast<double>(elements(out)) * 0.5);
  }

  // Output rows in parallel, each operand's row walked with its step.
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override {
    const float* src[3] = {condition_.empty() ? in[0] : condition_.data(), in[1], in[2]};
    const int64_t cols = rows_.cols();
    pool.run(rows_.rows(), threads, [&](int64_t r, int) {
      const auto c = rows_.operand(0, r), x = rows_.operand(1, r), y = rows_.operand(2, r);
      float* dst = out[0] + r * cols;
      for (int64_t i = 0; i < cols; ++i)
        dst[i] = src[0][c.offset + i * c.step] != 0.0f ? src[1][x.offset + i * x.step] : src[2][y.offset + i * y.step];
    });
  }

  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    const Shape& o = outputs_[0];
    for_each_index(o, [&](const std::vector<int64_t>& index, int64_t flat) {
      const bool c = at_broadcast(condition_.empty() ? in[0] : condition_.data(), inputs_[0], o, index) != 0.0;
      out[0][flat] = static_cast<float>(at_broadcast(c ? in[1] : in[2], inputs_[c ? 1 : 2], o, index));
    });
  }

 private:
  std::vector<float> condition_;  // 1 or 0, of the condition's shape; empty: input 0 at run time
  BroadcastRows rows_;            // condition, X, Y
};

}  // namespace

std::unique_ptr<CpuOp> make_where_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<WhereOp>(task, host);
}

}  // namespace aoe::cpu
