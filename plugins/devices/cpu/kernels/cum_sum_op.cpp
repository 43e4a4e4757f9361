// CumSum: running sums along an axis (exclusive, reverse), of any dtype the
// device holds; the axis is read as the model runs.
#include "op_factories.h"

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "aoe/sdk/error.h"
#include "held_dtype.h"
#include "op_util.h"
#include "threaded_op.h"

namespace aoe::cpu {
namespace {

class CumSumOp final : public ThreadedOp {
 public:
  CumSumOp(const sdk::OpTask& task, const HostCpu& host) {
    const std::string who = "CumSum '" + task.name + "'";
    require_plain(task, 2, 2, {1}, Takes::held);
    require_dtype(task, 1, false, Takes::integral);
    if (elements(task.inputs[1].shape) != 1) invalid(who + ": axis must be one value");
    if (task.inputs[0].shape.empty()) invalid(who + " takes a tensor of rank 1 or more");
    exclusive_ = int_attr(task.attrs, "exclusive", 0) != 0;
    reverse_ = int_attr(task.attrs, "reverse", 0) != 0;
    for (const auto& t : task.inputs) inputs_.push_back(t.shape);
    outputs_ = {inputs_[0]};
    require_output_shape(task, inputs_[0]);
    space_ = threads_space(host, static_cast<double>(elements(inputs_[0])));
  }

  ValueRange input_range(size_t i) const override {
    return i == 1 ? ValueRange{0.0f, 0.0f} : ValueRange{};
  }

  // A task per outer slice: its inner columns summed together, row by row along the axis.
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override {
    if (elements(output_shapes()[0]) == 0) return;
    const auto s = split(in[1]);
    const bool exclusive = exclusive_, reverse = reverse_;
    const float* x = in[0];
    float* y = out[0];
    pool.run(s.outer, threads, [&](int64_t o, int) {
      const float* src = x + o * s.extent * s.inner;
      float* dst = y + o * s.extent * s.inner;
      for (int64_t step = 0; step < s.extent; ++step) {
        const int64_t k = reverse ? s.extent - 1 - step : step;
        const int64_t prev = reverse ? k + 1 : k - 1;
        for (int64_t i = 0; i < s.inner; ++i) {
          const float before = step == 0 ? 0.0f : (exclusive ? dst[prev * s.inner + i] + src[prev * s.inner + i] : dst[prev * s.inner + i]);
          dst[k * s.inner + i] = exclusive ? before : before + src[k * s.inner + i];
        }
      }
    });
  }

  // Each output as the sum of the inputs it covers, in double.
  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    const auto s = split(in[1]);
    for (int64_t o = 0; o < s.outer; ++o)
      for (int64_t k = 0; k < s.extent; ++k)
        for (int64_t i = 0; i < s.inner; ++i) {
          double sum = 0;
          for (int64_t j = 0; j < s.extent; ++j) {
            const bool covered = reverse_ ? (exclusive_ ? j > k : j >= k) : (exclusive_ ? j < k : j <= k);
            if (covered) sum += in[0][(o * s.extent + j) * s.inner + i];
          }
          out[0][(o * s.extent + k) * s.inner + i] = static_cast<float>(sum);
        }
  }

 private:
  // Outer slices, the axis's extent and the elements after it, for the axis `value` names.
  struct Split {
    int64_t outer = 1, extent = 1, inner = 1;
  };

  Split split(const float* axis) const {
    const Shape& in = inputs_[0];
    const auto rank = static_cast<int64_t>(in.size());
    const auto a = axis ? static_cast<int64_t>(std::lround(axis[0])) : 0;
    if (a < -rank || a >= rank)
      throw sdk::Error(sdk::StatusCode::invalid_argument,
                       "CumSum: axis " + std::to_string(a) + " fed as the model runs is outside rank " + std::to_string(rank));
    const auto at = static_cast<size_t>(a < 0 ? a + rank : a);
    return {dims_product(in, 0, at), in[at], dims_product(in, at + 1, in.size())};
  }
  bool exclusive_ = false, reverse_ = false;
};

}  // namespace

std::unique_ptr<CpuOp> make_cum_sum_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<CumSumOp>(task, host);
}

}  // namespace aoe::cpu
