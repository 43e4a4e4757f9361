// GatherND and ScatterND: each row of `indices` (its last axis, k long)
// names a slice of the data, data[b..., i0, ..., ik-1, :], after
// `batch_dims` leading axes the two share (GatherND). GatherND copies the
// slices out in order; ScatterND writes `updates` into a copy of the data
// there (or adds, multiplies: `reduction`), in order. The indices are the
// model's constants, folded into attribute "indices" (each slice's offset
// worked out once, when the op is made), or fed as the model runs (PyTorch's
// index_put and advanced indexing with computed indices).
#include "op_factories.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "indexed_slices_op.h"
#include "op_util.h"
#include "reference.h"

namespace aoe::cpu {
namespace {

class NdIndexOp final : public IndexedSlicesOp {
 public:
  NdIndexOp(const sdk::OpTask& task, const HostCpu& host) : IndexedSlicesOp(task.op_type == "ScatterND") {
    const std::string who = task.op_type + " '" + task.name + "'";
    if (!task.fused_ops.empty()) unsupported("the cpu device fuses no ops after " + task.op_type);
    require_dtypes(task, Takes::held, {1});
    require_inputs(task, scatter_ ? 3 : 2, scatter_ ? 3 : 2);
    const Shape data = task.inputs[0].shape, indices = task.inputs[1].shape;
    const auto batch = static_cast<size_t>(scatter_ ? 0 : int_attr(task.attrs, "batch_dims", 0));
    if (indices.empty() || data.empty()) invalid(who + " takes data and indices of rank 1 or more");
    const auto k = static_cast<size_t>(indices.back());
    if (batch >= indices.size() || batch + k > data.size())
      invalid(who + ": index rows of " + std::to_string(k) + " after " + std::to_string(batch) + " batch axes for data " + to_string(data));
    for (size_t d = 0; d < batch; ++d)
      if (indices[d] != data[d]) invalid(who + ": batch axis " + std::to_string(d) + " differs between data and indices");
    reduction_ = read_reduction(task, who);
    Shape out(indices.begin(), indices.end() - 1);
    out.insert(out.end(), data.begin() + static_cast<std::ptrdiff_t>(batch + k), data.end());
    if (scatter_ && task.inputs[2].shape != out)
      invalid(who + ": updates are " + to_string(task.inputs[2].shape) + ", expected " + to_string(out));
    slice_ = dims_product(data, batch + k, data.size());
    batch_ = batch;
    set_slice_shapes(task, host, data, indices, out, 0.25);
    values_ = bind_indices(task);
  }

  std::vector<int64_t> offsets_of(const std::vector<int64_t>& values) const override {
    const Shape& data = inputs_[0];
    const Shape& indices = inputs_[1];
    const auto k = static_cast<size_t>(indices.back());
    const auto strides = strides_of(data);
    const int64_t rows = dims_product(indices, 0, indices.size() - 1);
    const int64_t per_batch = dims_product(indices, batch_, indices.size() - 1);
    std::vector<int64_t> offsets;
    offsets.reserve(static_cast<size_t>(rows));
    for (int64_t r = 0; r < rows; ++r) {
      int64_t offset = r / std::max<int64_t>(1, per_batch) * (batch_ ? strides[batch_ - 1] : 0);
      for (size_t j = 0; j < k; ++j) {
        const int64_t extent = data[batch_ + j];
        const int64_t i = values[static_cast<size_t>(r) * k + j];
        if (i < -extent || i >= extent)
          invalid(who_ + ": index " + std::to_string(i) + " of row " + std::to_string(r) + " is out of range for an axis of " +
                  std::to_string(extent));
        offset += (i < 0 ? i + extent : i) * strides[batch_ + j];
      }
      offsets.push_back(offset);
    }
    return offsets;
  }

  // Run-time index rows drawn within the shortest axis they index, negative ones too.
  ValueRange input_range(size_t i) const override {
    if (i != 1) return {};
    const Shape& data = inputs_[0];
    const auto k = static_cast<size_t>(inputs_[1].back());
    int64_t shortest = k ? data[batch_] : 0;
    for (size_t j = 0; j < k; ++j) shortest = std::min(shortest, data[batch_ + j]);
    return {-static_cast<float>(shortest), static_cast<float>(shortest)};
  }

  // Element by element: each element of a slice at its data multi-index, the
  // batch coordinates and the row's indices, then the slice's own.
  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    const Shape& data = inputs_[0];
    const Shape& indices = inputs_[1];
    const size_t k = static_cast<size_t>(indices.back());
    const Shape rows_shape(indices.begin(), indices.end() - 1);
    const Shape slice_shape(data.begin() + static_cast<std::ptrdiff_t>(batch_ + k), data.end());
    const auto strides = strides_of(data);
    std::vector<double> y(static_cast<size_t>(elements(outputs_[0])));
    if (scatter_)
      for (size_t i = 0; i < y.size(); ++i) y[i] = in[0][i];
    if (elements(rows_shape) == 0 || elements(slice_shape) == 0) return store(y, out[0]);
    const std::vector<int64_t> values = runtime_ ? indices_at_run(in[1]) : values_;
    std::vector<int64_t> row(rows_shape.size(), 0);
    size_t from = 0;
    do {
      const size_t r = from / static_cast<size_t>(elements(slice_shape));
      std::vector<int64_t> e(slice_shape.size(), 0);
      do {
        int64_t at = 0;
        for (size_t d = 0; d < batch_; ++d) at += row[d] * strides[d];
        for (size_t j = 0; j < k; ++j) {
          int64_t i = values[r * k + j];
          if (i < -data[batch_ + j] || i >= data[batch_ + j]) invalid(who_ + ": index " + std::to_string(i) + " is out of range");
          if (i < 0) i += data[batch_ + j];
          at += i * strides[batch_ + j];
        }
        for (size_t d = 0; d < e.size(); ++d) at += e[d] * strides[batch_ + k + d];
        reference_move(in, at, from++, y);
      } while (next_index(e, slice_shape));
    } while (next_index(row, rows_shape));
    store(y, out[0]);
  }

 private:
  size_t batch_ = 0;
  std::vector<int64_t> values_;   // constant indices as given
};

}  // namespace

std::unique_ptr<CpuOp> make_nd_index_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<NdIndexOp>(task, host);
}

}  // namespace aoe::cpu
