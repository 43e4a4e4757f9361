// LpNormalization: x divided by its L1 or L2 norm (p 1 or 2) along `axis`
// (-1 by default), as ONNX Runtime computes it; a vector whose norm is 0
// gives zeros (ONNX's reference would divide 0 by 0).
#include "op_factories.h"

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "op_util.h"
#include "threaded_op.h"

namespace aoe::cpu {
namespace {

class LpNormalizationOp final : public ThreadedOp {
 public:
  LpNormalizationOp(const sdk::OpTask& task, const HostCpu& host) {
    const std::string who = "LpNormalization '" + task.name + "'";
    require_plain(task, 1, 1);
    const Shape& x = task.inputs[0].shape;
    p_ = int_attr(task.attrs, "p", 2);
    if (p_ != 1 && p_ != 2) invalid(who + ": p must be 1 or 2, not " + std::to_string(p_));
    if (x.empty()) invalid(who + " takes a tensor of rank 1 or more");
    const auto axis = static_cast<size_t>(normalize_axis(int_attr(task.attrs, "axis", -1), static_cast<int64_t>(x.size()), who + ": axis"));
    outer_ = dims_product(x, 0, axis);
    extent_ = x[axis];
    inner_ = dims_product(x, axis + 1, x.size());
    require_output_shape(task, x);
    set_shapes(task, {x}, host, static_cast<double>(elements(x)) * 2.0);
  }

  // A task per outer index: the norms of its inner vectors, then the division.
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override {
    pool.run(outer_, threads, [&](int64_t o, int) {
      const float* x = in[0] + o * extent_ * inner_;
      float* y = out[0] + o * extent_ * inner_;
      std::vector<float> norm(static_cast<size_t>(inner_), 0.0f);
      for (int64_t k = 0; k < extent_; ++k)
        for (int64_t i = 0; i < inner_; ++i) {
          const float v = x[k * inner_ + i];
          norm[static_cast<size_t>(i)] += p_ == 1 ? std::abs(v) : v * v;
        }
      for (auto& n : norm) n = n == 0.0f ? 0.0f : 1.0f / (p_ == 1 ? n : std::sqrt(n));
      for (int64_t k = 0; k < extent_; ++k)
        for (int64_t i = 0; i < inner_; ++i) y[k * inner_ + i] = x[k * inner_ + i] * norm[static_cast<size_t>(i)];
    });
  }

  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    for (int64_t o = 0; o < outer_; ++o)
      for (int64_t i = 0; i < inner_; ++i) {
        const int64_t first = o * extent_ * inner_ + i;
        double norm = 0;
        for (int64_t k = 0; k < extent_; ++k) {
          const double v = in[0][first + k * inner_];
          norm += p_ == 1 ? std::abs(v) : v * v;
        }
        if (p_ == 2) norm = std::sqrt(norm);
        for (int64_t k = 0; k < extent_; ++k)
          out[0][first + k * inner_] = norm == 0 ? 0.0f : static_cast<float>(in[0][first + k * inner_] / norm);
      }
  }

 private:
  int64_t p_ = 2, outer_ = 1, extent_ = 1, inner_ = 1;
};

}  // namespace

std::unique_ptr<CpuOp> make_lp_normalization_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<LpNormalizationOp>(task, host);
}

}  // namespace aoe::cpu
