// ReverseSequence: along `time_axis`, the first sequence_lens[b] positions
// of each batch entry b (along `batch_axis`) reversed, the rest kept. The
// lengths are the model's constants, folded into attribute "sequence_lens".
#include "op_factories.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "op_util.h"
#include "reference.h"
#include "threaded_op.h"

namespace aoe::cpu {
namespace {

class ReverseSequenceOp final : public ThreadedOp {
 public:
  ReverseSequenceOp(const sdk::OpTask& task, const HostCpu& host) {
    const std::string who = "ReverseSequence '" + task.name + "'";
    require_plain(task, 2, 2, {1}, Takes::held);
    const Shape in = task.inputs[0].shape;
    if (in.size() < 2) invalid(who + " takes a tensor of rank 2 or more");
    const auto rank = static_cast<int64_t>(in.size());
    time_ = static_cast<size_t>(normalize_axis(int_attr(task.attrs, "time_axis", 0), rank, who));
    batch_ = static_cast<size_t>(normalize_axis(int_attr(task.attrs, "batch_axis", 1), rank, who));
    if (time_ == batch_) invalid(who + ": time_axis and batch_axis are one axis");
    lengths_ = folded_ints(task, 1, "sequence_lens");
    if (static_cast<int64_t>(lengths_.size()) != in[batch_]) invalid(who + ": a length per batch entry");
    for (auto& l : lengths_) {
      if (l < 0 || l > in[time_]) invalid(who + ": sequence length " + std::to_string(l) + " for a time axis of " + std::to_string(in[time_]));
      l = std::max<int64_t>(l, 1);  // a sequence of 0 or 1 stays as it is
    }
    const size_t last = std::max(time_, batch_);
    inner_ = dims_product(in, last + 1, in.size());
    lead_ = Shape(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(last + 1));
    inputs_ = {in, task.inputs[1].shape};
    outputs_ = {in};
    require_output_shape(task, in);
    space_ = threads_space(host, static_cast<double>(elements(in)) * 0.25);
  }

  // Rows of the axes after both: each copied whole from its source row.
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override {
    if (elements(inputs_[0]) == 0) return;
    const auto strides = strides_of(lead_);
    pool.run(elements(lead_), threads, [&](int64_t r, int) {
      const int64_t b = r / strides[batch_] % lead_[batch_], t = r / strides[time_] % lead_[time_];
      const int64_t len = lengths_[static_cast<size_t>(b)];
      const int64_t from = t < len ? r + (len - 1 - 2 * t) * strides[time_] : r;
      std::memcpy(out[0] + r * inner_, in[0] + from * inner_, static_cast<size_t>(inner_) * sizeof(float));
    });
  }

  // Element by element: the time coordinate mirrored within its sequence.
  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    const auto strides = strides_of(inputs_[0]);
    for_each_index(inputs_[0], [&](const std::vector<int64_t>& index, int64_t flat) {
      const int64_t t = index[time_], len = lengths_[static_cast<size_t>(index[batch_])];
      const int64_t from = t < len ? len - 1 - t : t;
      out[0][flat] = in[0][flat + (from - t) * strides[time_]];
    });
  }

 private:
  size_t time_ = 0, batch_ = 1;
  std::vector<int64_t> lengths_;
  int64_t inner_ = 1;  // the elements of a row of the axes after both
  Shape lead_;         // the axes up to the later of the two
};

}  // namespace

std::unique_ptr<CpuOp> make_reverse_sequence_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<ReverseSequenceOp>(task, host);
}

}  // namespace aoe::cpu
