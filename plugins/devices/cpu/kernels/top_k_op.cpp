// TopK: the k largest (or smallest) values along an axis, sorted, and their
// int64 indices held as floats (held_dtype.h); ties keep the lower index
// first. k is the outputs' extent along the axis; a K fed as the model runs
// must agree with it.
#include "op_factories.h"

#include <algorithm>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "aoe/sdk/error.h"
#include "held_dtype.h"
#include "op_util.h"
#include "threaded_op.h"

namespace aoe::cpu {
namespace {

class TopKOp final : public ThreadedOp {
 public:
  TopKOp(const sdk::OpTask& task, const HostCpu& host) {
    const std::string who = "TopK '" + task.name + "'";
    require_plain(task, 1, 2, {1}, Takes::held);
    if (task.outputs.size() != 2) invalid(who + " gives values and indices");
    require_dtype(task, 1, true, Takes::integral);
    if (task.inputs.size() > 1 && elements(task.inputs[1].shape) != 1) invalid(who + ": K must be one value");
    if (int_attr(task.attrs, "sorted", 1) == 0) unsupported("the cpu device runs TopK sorted only");
    largest_ = int_attr(task.attrs, "largest", 1) != 0;
    const Shape in = task.inputs[0].shape;
    if (in.empty()) invalid(who + " takes a tensor of rank 1 or more");
    const auto axis = static_cast<size_t>(normalize_axis(int_attr(task.attrs, "axis", -1), static_cast<int64_t>(in.size()), who));
    if (!task.outputs[0].fully_known() || task.outputs[0].shape.size() != in.size())
      unsupported(who + ": the cpu device takes k from its outputs' shape, which the task does not give");
    const Shape out = task.outputs[0].shape;
    k_ = out[axis];
    outer_ = dims_product(in, 0, axis);
    extent_ = in[axis];
    inner_ = dims_product(in, axis + 1, in.size());
    if (k_ > extent_) invalid(who + ": k " + std::to_string(k_) + " is more than the axis's " + std::to_string(extent_));
    Shape want = in;
    want[axis] = k_;
    if (out != want) invalid(who + ": output " + to_string(out) + ", expected " + to_string(want));
    for (const auto& t : task.inputs) inputs_.push_back(t.shape);
    outputs_ = {out, out};
    space_ = threads_space(host, static_cast<double>(elements(in)) * 4.0);
  }

  ValueRange input_range(size_t i) const override {
    return i == 1 ? ValueRange{.whole = true, .values = {static_cast<float>(k_)}} : ValueRange{};
  }

  // A task per outer slice: each of its inner rows along the axis ranked by a partial sort of indices.
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override {
    if (in.size() > 1) require_k(in[1]);
    const int64_t extent = extent_, inner = inner_, k = k_;
    if (k == 0 || elements(input_shapes()[0]) == 0) return;
    const bool largest = largest_;
    const float* x = in[0];
    float* values = out[0];
    float* indices = out[1];
    pool.run(outer_, threads, [&](int64_t o, int) {
      std::vector<int64_t> order(static_cast<size_t>(extent));
      for (int64_t i = 0; i < inner; ++i) {
        const float* row = x + o * extent * inner + i;
        std::iota(order.begin(), order.end(), int64_t{0});
        const auto before = [&](int64_t a, int64_t b) {
          const float va = row[a * inner], vb = row[b * inner];
          if (va != vb) return largest ? va > vb : va < vb;
          return a < b;
        };
        std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
        for (int64_t j = 0; j < k; ++j) {
          const int64_t at = (o * k + j) * inner + i;
          values[at] = row[order[static_cast<size_t>(j)] * inner];
          indices[at] = static_cast<float>(order[static_cast<size_t>(j)]);
        }
      }
    });
  }

  // k rounds of picking the best value not yet taken, lowest index first among equals.
  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    if (in.size() > 1) require_k(in[1]);
    for (int64_t o = 0; o < outer_; ++o)
      for (int64_t i = 0; i < inner_; ++i) {
        std::vector<bool> taken(static_cast<size_t>(extent_), false);
        for (int64_t j = 0; j < k_; ++j) {
          int64_t best = -1;
          for (int64_t e = 0; e < extent_; ++e) {
            if (taken[static_cast<size_t>(e)]) continue;
            const double v = in[0][(o * extent_ + e) * inner_ + i];
            const double b = best < 0 ? 0 : in[0][(o * extent_ + best) * inner_ + i];
            if (best < 0 || (largest_ ? v > b : v < b)) best = e;
          }
          taken[static_cast<size_t>(best)] = true;
          out[0][(o * k_ + j) * inner_ + i] = in[0][(o * extent_ + best) * inner_ + i];
          out[1][(o * k_ + j) * inner_ + i] = static_cast<float>(best);
        }
      }
  }

 private:
  void require_k(const float* k) const {
    if (k && static_cast<int64_t>(k[0]) != k_)
      throw sdk::Error(sdk::StatusCode::invalid_argument, "TopK: K " + std::to_string(static_cast<int64_t>(k[0])) +
                                                              " fed as the model runs is not its outputs' " + std::to_string(k_));
  }
  bool largest_ = true;
  int64_t outer_ = 1, extent_ = 1, inner_ = 1, k_ = 1;
};

}  // namespace

std::unique_ptr<CpuOp> make_top_k_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<TopKOp>(task, host);
}

}  // namespace aoe::cpu
