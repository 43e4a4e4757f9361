// Concat and Split along one axis: in the (outer, axis x inner) view each
// input's (or output's) share of an outer row is one contiguous run, copied
// whole; the threads share the runs.
#include "op_factories.h"

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "aoe/sdk/tensor_size.h"
#include "cpu_op.h"
#include "op_util.h"
#include "reference.h"
#include "threads_kernel.h"

namespace aoe::cpu {
namespace {

// Same rank as `a`, equal dims but on `axis`.
void require_alike(const sdk::OpTask& task, const Shape& a, const Shape& b, size_t axis, const std::string& what) {
  bool same = a.size() == b.size();
  for (size_t d = 0; same && d < a.size(); ++d) same = d == axis || a[d] == b[d];
  if (!same)
    invalid(task.op_type + " '" + task.name + "': " + what + " " + to_string(b) + " does not match " + to_string(a) +
            " but on axis " + std::to_string(axis));
}

// The runs of a Concat or Split, shared among the threads: in the (outer,
// axis x inner) view each part's share of an outer row is one contiguous run,
// at its offset in the joined row. `copy(joined_at, part, part_at, count)`
// moves one; an empty part has no run (and its buffer no data).
template <typename Copy>
void for_each_run(ThreadPool& pool, int threads, int64_t outer, const std::vector<Shape>& parts, size_t axis,
                  int64_t inner, const Copy& copy) {
  std::vector<int64_t> offsets;
  int64_t row = 0;
  for (const auto& s : parts) {
    offsets.push_back(row);
    row += s[axis] * inner;
  }
  const auto n = static_cast<int64_t>(parts.size());
  pool.run(outer * n, threads, [&](int64_t task, int) {
    const int64_t o = task / n;
    const auto i = static_cast<size_t>(task % n);
    const int64_t run = parts[i][axis] * inner;
    if (run > 0) copy(o * row + offsets[i], i, o * run, run);
  });
}

// The tensors of a Concat or Split that hold activations: all but a Split's sizes.
std::vector<const sdk::TensorDesc*> joined_tensors(const sdk::OpTask& task) {
  std::vector<const sdk::TensorDesc*> out;
  if (task.op_type == "Concat")
    for (const auto& t : task.inputs) out.push_back(&t);
  else
    out.push_back(&task.inputs.at(0));
  for (const auto& t : task.outputs) out.push_back(&t);
  return out;
}

// Along the channels in whole channel blocks, the blocked layout's runs are
// NCHW's: each part's share of an image is one contiguous run of C_i x map
// values either way. The lanes every activation is marked blocked with, or
// 0 where none is.
int join_blocking(const sdk::OpTask& task, size_t axis, const HostCpu& host) {
  const auto tensors = joined_tensors(task);
  int lanes = 0;
  size_t marked = 0;
  for (const auto* t : tensors)
    if (const int l = blocking_of(*t, host, task.op_type)) lanes = l, ++marked;
  if (marked == 0) return 0;
  if (marked != tensors.size())
    invalid(task.op_type + " '" + task.name + "': its parts and the whole are marked NCHWc all or none");
  for (const auto* t : tensors)
    if (axis != 1 || t->shape[1] % lanes != 0)
      invalid(task.op_type + " '" + task.name + "' runs on the blocked layout along the channels (axis 1) in whole " +
              std::to_string(lanes) + "-channel blocks only, not " + to_string(t->shape) + " along axis " +
              std::to_string(axis));
  return lanes;
}

// What Concat and Split share: threads, their one knob, and the (outer,
// axis x inner) view of the joined tensor (Concat's output, Split's input).
class JoinOp : public CpuOp {
 public:
  enum Knob : size_t { kThreads, kKnobCount };
  std::string check(const sdk::Config&) const override { return {}; }

 protected:
  size_t axis_ = 0;
  int64_t outer_ = 1, inner_ = 1;
};

class ConcatOp final : public JoinOp {
 public:
  ConcatOp(const sdk::OpTask& task, const HostCpu& host) {
    if (!task.fused_ops.empty()) unsupported("the cpu device fuses no ops after Concat");
    require_dtypes(task, Takes::held);
    if (task.inputs.empty()) invalid("Concat '" + task.name + "' has no inputs");
    if (!task.attrs.contains("axis")) invalid("Concat '" + task.name + "' has no axis attribute");
    const Shape first = task.inputs[0].shape;
    if (first.empty()) invalid("Concat '" + task.name + "' cannot join scalars");
    axis_ = static_cast<size_t>(normalize_axis(int_attr(task.attrs, "axis", 0), static_cast<int64_t>(first.size()), "Concat axis"));
    Shape out = first;
    out[axis_] = 0;
    for (const auto& t : task.inputs) {
      require_alike(task, first, t.shape, axis_, "input");
      const auto sum = sdk::checked_add(out[axis_], t.shape[axis_]);
      if (!sum) invalid("Concat '" + task.name + "': the joined axis overflows");
      out[axis_] = *sum;
      inputs_.push_back(t.shape);
    }
    if (!task.outputs.empty() && task.outputs[0].shape != out)
      invalid("Concat '" + task.name + "' output is " + to_string(task.outputs[0].shape) + ", its inputs join to " + to_string(out));
    outputs_ = {out};
    output_blocking_ = join_blocking(task, axis_, host);
    input_blocking_.assign(task.inputs.size(), output_blocking_);
    outer_ = dims_product(out, 0, axis_);
    inner_ = dims_product(out, axis_ + 1, out.size());
    space_ = threads_space(host, static_cast<double>(elements(out)) * 0.25);
  }

  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;

  // Each output element from the input whose span of the axis holds it.
  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    const Shape& o = outputs_[0];
    for_each_index(o, [&](const std::vector<int64_t>& index, int64_t flat) {
      int64_t along = index[axis_];
      size_t i = 0;
      while (along >= inputs_[i][axis_]) along -= inputs_[i++][axis_];
      auto at = index;
      at[axis_] = along;
      const auto strides = strides_of(inputs_[i]);
      int64_t offset = 0;
      for (size_t d = 0; d < at.size(); ++d) offset += at[d] * strides[d];
      out[0][flat] = in[i][offset];
    });
  }

 private:
  friend class ConcatKernel;
};

class ConcatKernel final : public ThreadsKernel<ConcatOp> {
 public:
  using ThreadsKernel::ThreadsKernel;

  void run(ThreadPool& pool) override {
    float* y = outputs_[0].data();
    for_each_run(pool, threads_, op_.outer_, op_.input_shapes(), op_.axis_, op_.inner_,
                 [&](int64_t joined, size_t i, int64_t part, int64_t count) {
                   std::memcpy(y + joined, inputs_[i] + part, static_cast<size_t>(count) * sizeof(float));
                 });
  }
};

std::unique_ptr<Kernel> ConcatOp::build(const sdk::Config& c) const { return threads_kernel<ConcatKernel>(*this, c); }

// The split sizes are the outputs' extents along the axis.
class SplitOp final : public JoinOp {
 public:
  SplitOp(const sdk::OpTask& task, const HostCpu& host) {
    require_plain(task, 1, 2, {1}, Takes::held);
    const Shape in = task.inputs[0].shape;
    if (in.empty()) invalid("Split '" + task.name + "' cannot split a scalar");
    if (task.outputs.empty()) invalid("Split '" + task.name + "' has no outputs");
    axis_ = static_cast<size_t>(normalize_axis(int_attr(task.attrs, "axis", 0), static_cast<int64_t>(in.size()), "Split axis"));
    int64_t total = 0;
    for (const auto& t : task.outputs) {
      if (!t.fully_known()) invalid("Split '" + task.name + "' needs its outputs' shapes: they give the split sizes");
      require_alike(task, in, t.shape, axis_, "output");
      total += t.shape[axis_];
      outputs_.push_back(t.shape);
    }
    if (total != in[axis_])
      invalid("Split '" + task.name + "' outputs take " + std::to_string(total) + " along axis " + std::to_string(axis_) +
              ", the input has " + std::to_string(in[axis_]));
    for (const auto& t : task.inputs) inputs_.push_back(t.shape);
    output_blocking_ = join_blocking(task, axis_, host);
    input_blocking_.assign(task.inputs.size(), 0);
    input_blocking_[0] = output_blocking_;
    outer_ = dims_product(in, 0, axis_);
    inner_ = dims_product(in, axis_ + 1, in.size());
    space_ = threads_space(host, static_cast<double>(elements(in)) * 0.25);
  }

  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;

  // Each output element from its place in the input: shifted along the axis
  // by the outputs before it.
  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    const auto strides = strides_of(inputs_[0]);
    int64_t shift = 0;
    for (size_t i = 0; i < outputs_.size(); ++i) {
      const Shape& o = outputs_[i];
      for_each_index(o, [&](const std::vector<int64_t>& index, int64_t flat) {
        int64_t offset = 0;
        for (size_t d = 0; d < o.size(); ++d) offset += (index[d] + (d == axis_ ? shift : 0)) * strides[d];
        out[i][flat] = in[0][offset];
      });
      shift += o[axis_];
    }
  }

 private:
  friend class SplitKernel;
};

class SplitKernel final : public ThreadsKernel<SplitOp> {
 public:
  using ThreadsKernel::ThreadsKernel;

  void run(ThreadPool& pool) override {
    const float* x = inputs_[0];
    for_each_run(pool, threads_, op_.outer_, op_.output_shapes(), op_.axis_, op_.inner_,
                 [&](int64_t joined, size_t i, int64_t part, int64_t count) {
                   std::memcpy(outputs_[i].data() + part, x + joined, static_cast<size_t>(count) * sizeof(float));
                 });
  }
};

std::unique_ptr<Kernel> SplitOp::build(const sdk::Config& c) const { return threads_kernel<SplitKernel>(*this, c); }

}  // namespace

std::unique_ptr<CpuOp> make_concat_split_op(const sdk::OpTask& task, const HostCpu& host) {
  if (task.op_type == "Concat") return std::make_unique<ConcatOp>(task, host);
  return std::make_unique<SplitOp>(task, host);
}

}  // namespace aoe::cpu
