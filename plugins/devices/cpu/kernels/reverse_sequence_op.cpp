#include "reverse_sequence_op.h"

#include <algorithm>
#include <cstring>

#include "buffer_kernel.h"
#include "op_util.h"
#include "reference.h"

namespace aoe::cpu {

class ReverseSequenceKernel final : public BufferKernel {
 public:
  ReverseSequenceKernel(const ReverseSequenceOp& op, int threads) : BufferKernel(op), op_(op), threads_(threads) {
    const Shape& in = op.input_shapes()[0];
    const size_t last = std::max(op.time_, op.batch_);
    inner_ = dims_product(in, last + 1, in.size());
    lead_ = Shape(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(last + 1));
  }

  // Rows of the axes after both: each copied whole from its source row.
  void run(ThreadPool& pool) override {
    const Shape& in = op_.input_shapes()[0];
    if (elements(in) == 0) return;
    const auto strides = strides_of(lead_);
    const float* x = inputs_[0];
    float* y = outputs_[0].data();
    pool.run(elements(lead_), threads_, [&](int64_t r, int) {
      const int64_t b = r / strides[op_.batch_] % lead_[op_.batch_], t = r / strides[op_.time_] % lead_[op_.time_];
      const int64_t len = op_.lengths_[static_cast<size_t>(b)];
      const int64_t from = t < len ? r + (len - 1 - 2 * t) * strides[op_.time_] : r;
      std::memcpy(y + r * inner_, x + from * inner_, static_cast<size_t>(inner_) * sizeof(float));
    });
  }

 private:
  const ReverseSequenceOp& op_;
  int threads_;
  int64_t inner_ = 1;
  Shape lead_;
};

ReverseSequenceOp::ReverseSequenceOp(const sdk::OpTask& task, const HostCpu& host) {
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
  inputs_ = {in, task.inputs[1].shape};
  outputs_ = {in};
  require_output_shape(task, in);
  space_ = threads_space(host, static_cast<double>(elements(in)) * 0.25);
}

std::string ReverseSequenceOp::check(const sdk::Config&) const { return {}; }

std::unique_ptr<Kernel> ReverseSequenceOp::build(const sdk::Config& c) const {
  return std::make_unique<ReverseSequenceKernel>(*this, static_cast<int>(c[kThreads]));
}

// Element by element: the time coordinate mirrored within its sequence.
void ReverseSequenceOp::reference(const std::vector<const float*>& in, const std::vector<float*>& out) const {
  const Shape& x = inputs_[0];
  if (elements(x) == 0) return;
  const auto strides = strides_of(x);
  std::vector<int64_t> index(x.size(), 0);
  size_t flat = 0;
  do {
    const int64_t t = index[time_], len = lengths_[static_cast<size_t>(index[batch_])];
    const int64_t from = t < len ? len - 1 - t : t;
    out[0][flat] = in[0][static_cast<int64_t>(flat) + (from - t) * strides[time_]];
    ++flat;
  } while (next_index(index, x));
}

}  // namespace aoe::cpu
