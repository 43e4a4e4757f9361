// EyeLike: a float32 tensor of the 2-D input's shape (of any type: its
// values are not read), 1 on the diagonal shifted by `k`, 0 elsewhere.
#include "op_factories.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "op_util.h"
#include "threaded_op.h"

namespace aoe::cpu {
namespace {

class EyeLikeOp final : public ThreadedOp {
 public:
  EyeLikeOp(const sdk::OpTask& task, const HostCpu& host) {
    const std::string who = "EyeLike '" + task.name + "'";
    if (!task.fused_ops.empty()) unsupported("the cpu device fuses no ops after EyeLike");
    // Only the input's shape is read; ones and zeros are the same in every held dtype (the output's).
    require_dtypes(task, Takes::held, {0});
    require_inputs(task, 1, 1);
    const Shape in = task.inputs[0].shape;
    if (in.size() != 2) invalid(who + " takes a 2-D input, not " + to_string(in));
    k_ = int_attr(task.attrs, "k", 0);
    require_output_shape(task, in);
    inputs_ = {in};
    outputs_ = {in};
    space_ = threads_space(host, static_cast<double>(elements(in)) * 0.25);
  }

  // A task per row: zeros, then its one diagonal element where the row has it.
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override {
    const Shape& s = output_shapes()[0];
    const int64_t cols = s[1];
    float* y = out[0];
    pool.run(s[0], threads, [&](int64_t r, int) {
      std::fill_n(y + r * cols, cols, 0.0f);
      if (const int64_t c = r + k_; c >= 0 && c < cols) y[r * cols + c] = 1.0f;
    });
  }

  void reference(const std::vector<const float*>&, const std::vector<float*>& out) const override {
    const Shape& s = outputs_[0];
    for (int64_t r = 0; r < s[0]; ++r)
      for (int64_t c = 0; c < s[1]; ++c) out[0][r * s[1] + c] = c - r == k_ ? 1.0f : 0.0f;
  }

 private:
  int64_t k_ = 0;
};

}  // namespace

std::unique_ptr<CpuOp> make_eye_like_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<EyeLikeOp>(task, host);
}

}  // namespace aoe::cpu
