// Hardmax (opset 13, any axis; the normaliser gives older ones one axis):
// 1 where an element is the first largest along the axis, 0 elsewhere.
#include "op_factories.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "op_util.h"
#include "reference.h"
#include "threaded_op.h"

namespace aoe::cpu {
namespace {

class HardmaxOp final : public ThreadedOp {
 public:
  HardmaxOp(const sdk::OpTask& task, const HostCpu& host) {
    const std::string who = "Hardmax '" + task.name + "'";
    require_plain(task, 1, 1);
    const Shape in = task.inputs[0].shape;
    if (in.empty()) invalid(who + " takes a tensor of rank 1 or more");
    const auto axis = static_cast<size_t>(normalize_axis(int_attr(task.attrs, "axis", -1), static_cast<int64_t>(in.size()), who));
    outer_ = dims_product(in, 0, axis);
    extent_ = in[axis];
    inner_ = dims_product(in, axis + 1, in.size());
    require_output_shape(task, in);
    set_shapes(task, {in}, host, static_cast<double>(elements(in)));
  }

  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override {
    const int64_t extent = extent_, inner = inner_;
    if (elements(output_shapes()[0]) == 0) return;
    const float* x = in[0];
    float* y = out[0];
    // A task per outer slice: its rows along the axis are read in runs of inner values.
    pool.run(outer_, threads, [&](int64_t o, int) {
      const float* src = x + o * extent * inner;
      float* dst = y + o * extent * inner;
      std::fill(dst, dst + extent * inner, 0.0f);
      for (int64_t i = 0; i < inner; ++i) {
        int64_t best = 0;
        for (int64_t k = 1; k < extent; ++k)
          if (src[k * inner + i] > src[best * inner + i]) best = k;
        dst[best * inner + i] = 1.0f;
      }
    });
  }

  // Per row along the axis: the index of the first largest value.
  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    std::vector<double> y(static_cast<size_t>(outer_ * extent_ * inner_), 0.0);
    for (int64_t o = 0; o < outer_; ++o)
      for (int64_t i = 0; i < inner_; ++i) {
        int64_t best = -1;
        double top = 0;
        for (int64_t k = 0; k < extent_; ++k) {
          const double v = in[0][(o * extent_ + k) * inner_ + i];
          if (best < 0 || v > top) best = k, top = v;
        }
        if (best >= 0) y[static_cast<size_t>((o * extent_ + best) * inner_ + i)] = 1.0;
      }
    store(y, out[0]);
  }

 private:
  int64_t outer_ = 1, extent_ = 1, inner_ = 1;
};

}  // namespace

std::unique_ptr<CpuOp> make_hardmax_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<HardmaxOp>(task, host);
}

}  // namespace aoe::cpu
