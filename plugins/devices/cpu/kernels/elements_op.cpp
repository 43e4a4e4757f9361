// GatherElements and ScatterElements (Scatter before opset 11): each
// element of `indices` (of the data's rank) names a position along `axis`,
// the others being its own.
// out[i..] = data[i.. with indices[i..] on axis] for GatherElements (shape
// of indices); for ScatterElements, data with updates[i..] written (or
// added, multiplied: `reduction`) at those positions, in order. The
// indices are the model's constants, folded into attribute "indices" (each
// element's offset worked out once, when the op is made), or fed as the
// model runs (a TopK's indices: torch.gather after torch.topk).
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

class ElementsOp final : public IndexedSlicesOp {
 public:
  // Scatter (opsets 9 and 10) is ScatterElements under its first name.
  ElementsOp(const sdk::OpTask& task, const HostCpu& host) : IndexedSlicesOp(task.op_type != "GatherElements") {
    const std::string who = task.op_type + " '" + task.name + "'";
    if (!task.fused_ops.empty()) unsupported("the cpu device fuses no ops after " + task.op_type);
    require_dtypes(task, Takes::held, {1});
    require_inputs(task, scatter_ ? 3 : 2, scatter_ ? 3 : 2);
    const Shape data = task.inputs[0].shape, indices = task.inputs[1].shape;
    if (data.empty() || indices.size() != data.size())
      invalid(who + ": indices " + to_string(indices) + " must have the rank of data " + to_string(data) + ", at least 1");
    axis_ = static_cast<size_t>(normalize_axis(int_attr(task.attrs, "axis", 0), static_cast<int64_t>(data.size()), who));
    for (size_t d = 0; d < data.size(); ++d)
      if (scatter_ ? indices[d] > data[d] : (d != axis_ && indices[d] > data[d]))
        invalid(who + ": indices " + to_string(indices) + " reach past data " + to_string(data) + " on axis " + std::to_string(d));
    if (scatter_ && task.inputs[2].shape != indices)
      invalid(who + ": updates " + to_string(task.inputs[2].shape) + " must have the shape of indices " + to_string(indices));
    reduction_ = read_reduction(task, who);
    set_slice_shapes(task, host, data, indices, indices, 0.5);
    indices_ = bind_indices(task);
  }

  std::vector<int64_t> offsets_of(const std::vector<int64_t>& given) const override {
    const Shape& data = inputs_[0];
    const Shape& indices = inputs_[1];
    const auto strides = strides_of(data);
    const int64_t extent = data[axis_];
    std::vector<int64_t> index(indices.size(), 0), offsets;
    offsets.reserve(given.size());
    if (!given.empty()) do {
        const int64_t i = given[offsets.size()];
        if (i < -extent || i >= extent)
          invalid(who_ + ": index " + std::to_string(i) + " at position " + std::to_string(offsets.size()) +
                  " is out of range for an axis of " + std::to_string(extent));
        int64_t offset = 0;
        for (size_t d = 0; d < index.size(); ++d) offset += (d == axis_ ? (i < 0 ? i + extent : i) : index[d]) * strides[d];
        offsets.push_back(offset);
      } while (next_index(index, indices));
    return offsets;
  }

  // Run-time indices drawn over the whole axis, negative ones too.
  ValueRange input_range(size_t i) const override {
    if (i != 1) return {};
    const auto extent = static_cast<float>(inputs_[0][axis_]);
    return {-extent, extent};
  }

  // Index by index: the data's multi-index with the axis's coordinate replaced.
  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    const Shape& data = inputs_[0];
    const Shape& indices = inputs_[1];
    const auto strides = strides_of(data);
    std::vector<double> y(static_cast<size_t>(elements(outputs_[0])));
    if (scatter_)
      for (size_t i = 0; i < y.size(); ++i) y[i] = in[0][i];
    const std::vector<int64_t> given = runtime_ ? indices_at_run(in[1]) : indices_;
    std::vector<int64_t> index(indices.size(), 0);
    size_t flat = 0;
    if (!given.empty()) do {
        int64_t a = given[flat];
        if (a < -data[axis_] || a >= data[axis_]) invalid(who_ + ": index " + std::to_string(a) + " is out of range");
        if (a < 0) a += data[axis_];
        int64_t at = 0;
        for (size_t d = 0; d < index.size(); ++d) at += (d == axis_ ? a : index[d]) * strides[d];
        reference_move(in, at, flat++, y);
      } while (next_index(index, indices));
    store(y, out[0]);
  }

 private:
  size_t axis_ = 0;
  std::vector<int64_t> indices_;  // constant ones as given, negative ones too
};

}  // namespace

std::unique_ptr<CpuOp> make_elements_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<ElementsOp>(task, host);
}

}  // namespace aoe::cpu
