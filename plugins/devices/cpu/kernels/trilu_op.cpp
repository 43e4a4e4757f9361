// Trilu: the upper (upper = 1) or lower triangle of each matrix of the last
// two axes, the k-th diagonal on; any dtype the device holds. k, optional,
// is read as the model runs.
#include "op_factories.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "held_dtype.h"
#include "op_util.h"
#include "threaded_op.h"

namespace aoe::cpu {
namespace {

class TriluOp final : public ThreadedOp {
 public:
  TriluOp(const sdk::OpTask& task, const HostCpu& host) {
    const std::string who = "Trilu '" + task.name + "'";
    require_plain(task, 1, 2, {1}, Takes::held);
    if (task.inputs.size() > 1) {
      require_dtype(task, 1, false, Takes::integral);
      if (elements(task.inputs[1].shape) != 1) invalid(who + ": k must be one value");
    }
    upper_ = int_attr(task.attrs, "upper", 1) != 0;
    const Shape in = task.inputs[0].shape;
    if (in.size() < 2) invalid(who + " takes a tensor of rank 2 or more");
    rows_ = in[in.size() - 2];
    cols_ = in[in.size() - 1];
    matrices_ = dims_product(in, 0, in.size() - 2);
    for (const auto& t : task.inputs) inputs_.push_back(t.shape);
    outputs_ = {in};
    require_output_shape(task, in);
    space_ = threads_space(host, static_cast<double>(elements(in)) * 0.25);
  }
  ValueRange input_range(size_t i) const override { return i == 1 ? ValueRange{-2.0f, 2.0f} : ValueRange{}; }

  // A task per matrix: each row's kept run copied, the rest zeroed.
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override {
    const int64_t rows = rows_, cols = cols_;
    if (elements(output_shapes()[0]) == 0) return;
    const int64_t k = in.size() > 1 && in[1] ? static_cast<int64_t>(std::lround(in[1][0])) : 0;
    const bool upper = upper_;
    const float* x = in[0];
    float* y = out[0];
    pool.run(matrices_, threads, [&](int64_t m, int) {
      for (int64_t r = 0; r < rows; ++r) {
        const float* src = x + (m * rows + r) * cols;
        float* dst = y + (m * rows + r) * cols;
        // Upper keeps columns c >= r + k; lower keeps c <= r + k.
        const int64_t edge = std::clamp(upper ? r + k : r + k + 1, int64_t{0}, cols);
        if (upper) {
          std::fill(dst, dst + edge, 0.0f);
          std::copy(src + edge, src + cols, dst + edge);
        } else {
          std::copy(src, src + edge, dst);
          std::fill(dst + edge, dst + cols, 0.0f);
        }
      }
    });
  }

  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    const double k = in.size() > 1 && in[1] ? std::round(static_cast<double>(in[1][0])) : 0.0;
    for (int64_t m = 0; m < matrices_; ++m)
      for (int64_t r = 0; r < rows_; ++r)
        for (int64_t c = 0; c < cols_; ++c) {
          const int64_t at = (m * rows_ + r) * cols_ + c;
          const double diagonal = static_cast<double>(c - r);
          const bool kept = upper_ ? diagonal >= k : diagonal <= k;
          out[0][at] = kept ? in[0][at] : 0.0f;
        }
  }

 private:
  bool upper_ = true;
  int64_t matrices_ = 1, rows_ = 1, cols_ = 1;
};

}  // namespace

std::unique_ptr<CpuOp> make_trilu_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<TriluOp>(task, host);
}

}  // namespace aoe::cpu
