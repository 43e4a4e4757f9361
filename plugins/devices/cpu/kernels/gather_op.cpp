// Gather along any axis: output[outer, j, inner] = data[outer, indices[j],
// inner], negative indices counting from the end. The indices are the
// task's `indices` attribute where the model holds them as a constant (the
// frontend folds them), else its second input at run time; there, as every
// buffer of the device, they arrive as floats holding whole numbers, and a
// value out of range fails the run with its position.
#include "op_factories.h"

#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "cpu_op.h"
#include "op_util.h"
#include "reference.h"
#include "threads_kernel.h"

namespace aoe::cpu {
namespace {

[[noreturn]] void out_of_range(const std::string& name, double value, int64_t position, int64_t extent) {
  // A run-time index may be anything a float holds: only whole ones in int64's range print as integers.
  const bool whole = std::isfinite(value) && std::fabs(value) < 9e18;
  invalid("Gather '" + name + "': index " + (whole ? std::to_string(static_cast<int64_t>(value)) : std::to_string(value)) +
          " at position " +
          std::to_string(position) + " is out of range for an axis of " + std::to_string(extent) + " (it takes " +
          std::to_string(-extent) + " to " + std::to_string(extent - 1) + ")");
}

class GatherOp final : public CpuOp {
 public:
  enum Knob : size_t { kThreads, kKnobCount };

  GatherOp(const sdk::OpTask& task, const HostCpu& host) : name_(task.name) {
    const std::string who = "Gather '" + task.name + "'";
    require_plain(task, 2, 2, {1}, Takes::held);
    const Shape data = task.inputs[0].shape;
    const Shape indices = task.inputs[1].shape;
    if (data.empty()) invalid(who + " cannot gather from a scalar");
    axis_ = static_cast<size_t>(normalize_axis(int_attr(task.attrs, "axis", 0), static_cast<int64_t>(data.size()), who));
    Shape out(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(axis_));
    out.insert(out.end(), indices.begin(), indices.end());
    out.insert(out.end(), data.begin() + static_cast<std::ptrdiff_t>(axis_) + 1, data.end());
    if (!task.outputs.empty() && task.outputs[0].fully_known() && task.outputs[0].shape != out)
      invalid(who + ": output is " + to_string(task.outputs[0].shape) + ", data " + to_string(data) + " gathered by indices " +
              to_string(indices) + " on axis " + std::to_string(axis_) + " is " + to_string(out));
    require_output_shape(task, out);
    outer_ = dims_product(data, 0, axis_);
    extent_ = data[axis_];
    inner_ = dims_product(data, axis_ + 1, data.size());
    count_ = elements(indices);
    if (count_ > 0 && extent_ == 0 && outer_ * inner_ > 0) invalid(who + " gathers from an empty axis " + std::to_string(axis_));
    constant_ = task.attrs.contains("indices");
    // A whole-model run has no buffer for an integer constant: its values must be the attribute.
    if (!constant_ && task.inputs[1].constant)
      unsupported(who + ": its indices are a constant of " + std::to_string(count_) +
                  " values the frontend did not fold (it folds up to 2^22); the cpu device runs Gather on folded "
                  "constant indices or on indices fed at run time");
    if (constant_) {
      const auto given = ints_attr(task.attrs, "indices", {});
      if (static_cast<int64_t>(given.size()) != count_)
        invalid(who + ": " + std::to_string(given.size()) + " indices for an indices input of shape " + to_string(indices));
      for (size_t j = 0; j < given.size(); ++j) {
        if (given[j] < -extent_ || given[j] >= extent_) out_of_range(task.name, static_cast<double>(given[j]), static_cast<int64_t>(j), extent_);
        indices_.push_back(given[j] < 0 ? given[j] + extent_ : given[j]);
      }
    }
    inputs_ = {data, indices};
    outputs_ = {out};
    space_ = threads_space(host, static_cast<double>(elements(out)) * 0.25);
  }

  // Run-time indices drawn over the whole axis, negative ones too.
  ValueRange input_range(size_t i) const override {
    if (i != 1) return {};
    return {static_cast<float>(-extent_), static_cast<float>(extent_)};
  }

  std::string check(const sdk::Config&) const override { return {}; }
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;

  // Each output element at (outer..., j..., inner...) from the data at
  // (outer..., indices[j], inner...), index by index.
  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    const Shape& o = outputs_[0];
    const Shape& data = inputs_[0];
    const size_t q = inputs_[1].size();
    const auto strides = strides_of(data);
    const auto index_strides = strides_of(inputs_[1]);
    for_each_index(o, [&](const std::vector<int64_t>& index, int64_t flat) {
      int64_t j = 0;
      for (size_t d = 0; d < q; ++d) j += index[axis_ + d] * index_strides[d];
      const double v = constant_ ? static_cast<double>(indices_[static_cast<size_t>(j)]) : std::floor(static_cast<double>(in[1][j]));
      if (!(v >= static_cast<double>(-extent_) && v < static_cast<double>(extent_))) out_of_range(name_, v, j, extent_);
      int64_t i = static_cast<int64_t>(v);
      if (i < 0) i += extent_;
      int64_t offset = i * strides[axis_];
      for (size_t d = 0; d < axis_; ++d) offset += index[d] * strides[d];
      for (size_t d = axis_ + 1; d < data.size(); ++d) offset += index[d + q - 1] * strides[d];
      out[0][flat] = in[0][offset];
    });
  }

 private:
  friend class GatherKernel;
  std::string name_;
  size_t axis_ = 0;
  int64_t outer_ = 1, extent_ = 0, inner_ = 1, count_ = 0;
  bool constant_ = false;
  std::vector<int64_t> indices_;  // constant ones, from 0 (negative ones shifted)
};

class GatherKernel final : public ThreadsKernel<GatherOp> {
 public:
  GatherKernel(const GatherOp& op, int threads)
      : ThreadsKernel(op, threads), rows_(op.constant_ ? op.indices_ : std::vector<int64_t>(static_cast<size_t>(op.count_))) {}

  void run(ThreadPool& pool) override {
    if (!op_.constant_) read_indices();
    const int64_t inner = op_.inner_, count = op_.count_, extent = op_.extent_;
    if (elements(op_.output_shapes()[0]) == 0) return;  // an empty output: nothing to write, and no buffer
    const float* x = inputs_[0];
    float* y = outputs_[0].data();
    pool.run(op_.outer_ * count, threads_, [&](int64_t task, int) {
      const int64_t o = task / count, j = task % count;
      std::memcpy(y + task * inner, x + (o * extent + rows_[static_cast<size_t>(j)]) * inner,
                  static_cast<size_t>(inner) * sizeof(float));
    });
  }

 private:
  // The run-time indices, checked before any row is read.
  void read_indices() {
    const float* v = inputs_[1];
    const int64_t n = op_.extent_;
    for (int64_t j = 0; j < op_.count_; ++j) {
      const double i = std::floor(static_cast<double>(v[j]));
      if (!(i >= static_cast<double>(-n) && i < static_cast<double>(n))) out_of_range(op_.name_, i, j, n);
      rows_[static_cast<size_t>(j)] = static_cast<int64_t>(i) + (i < 0 ? n : 0);
    }
  }

  std::vector<int64_t> rows_;  // per index: the row of the gathered axis
};

std::unique_ptr<Kernel> GatherOp::build(const sdk::Config& c) const { return threads_kernel<GatherKernel>(*this, c); }

}  // namespace

std::unique_ptr<CpuOp> make_gather_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<GatherOp>(task, host);
}

}  // namespace aoe::cpu
