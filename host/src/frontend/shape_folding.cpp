// Evaluates integer shape arithmetic node by node, in the graph's topological order.
#include "shape_folding.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <optional>

namespace aoe::host {
namespace {

using Values = std::map<std::string, IntTensor>;
using T = onnx::TensorProto;

// Shape tensors hold a handful of numbers; anything bigger is data, not shape arithmetic.
constexpr int64_t kMaxElements = 1024;

bool is_int(int32_t elem_type) { return elem_type == T::INT64 || elem_type == T::INT32; }

std::optional<int64_t> element_count(const std::vector<int64_t>& dims) {
  int64_t count = 1;
  for (auto d : dims) {
    if (d < 0 || (d > 0 && count > kMaxElements / d)) return std::nullopt;
    count *= d;
  }
  return count;
}

template <typename Int>
std::vector<int64_t> read_raw(const std::string& raw) {
  std::vector<int64_t> values(raw.size() / sizeof(Int));
  for (size_t i = 0; i < values.size(); ++i) {
    Int v;
    std::memcpy(&v, raw.data() + i * sizeof(Int), sizeof(Int));  // raw_data is little-endian, as is the host
    values[i] = v;
  }
  return values;
}

std::optional<IntTensor> from_proto(const onnx::TensorProto& tensor) {
  if (!is_int(tensor.data_type()) || tensor.data_location() == T::EXTERNAL) return std::nullopt;
  IntTensor out{tensor.data_type(), {tensor.dims().begin(), tensor.dims().end()}, {}};
  const auto count = element_count(out.dims);
  if (!count) return std::nullopt;
  if (tensor.has_raw_data())
    out.values = tensor.data_type() == T::INT64 ? read_raw<int64_t>(tensor.raw_data())
                                                : read_raw<int32_t>(tensor.raw_data());
  else if (tensor.data_type() == T::INT64)
    out.values.assign(tensor.int64_data().begin(), tensor.int64_data().end());
  else
    out.values.assign(tensor.int32_data().begin(), tensor.int32_data().end());
  if (static_cast<int64_t>(out.values.size()) != *count) return std::nullopt;
  return out;
}

IntTensor vector_of(std::vector<int64_t> values) {
  const auto n = static_cast<int64_t>(values.size());
  return {T::INT64, {n}, std::move(values)};
}

const onnx::AttributeProto* find_attr(const onnx::NodeProto& node, const std::string& name) {
  for (const auto& attr : node.attribute())
    if (attr.name() == name) return &attr;
  return nullptr;
}

int64_t int_attr(const onnx::NodeProto& node, const std::string& name, int64_t fallback) {
  const auto* attr = find_attr(node, name);
  return attr ? attr->i() : fallback;
}

std::optional<std::vector<int64_t>> known_shape(const onnx::TypeProto& type) {
  if (!type.has_tensor_type() || !type.tensor_type().has_shape()) return std::nullopt;
  std::vector<int64_t> dims;
  for (const auto& dim : type.tensor_type().shape().dim()) {
    if (!dim.has_dim_value() || dim.dim_value() < 0) return std::nullopt;
    dims.push_back(dim.dim_value());
  }
  return dims;
}

// Negative axes count from the end, as everywhere in ONNX.
std::optional<int64_t> normalize_axis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank) return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

class Folder {
 public:
  explicit Folder(const onnx::GraphProto& graph) {
    for (const auto& value : graph.input()) types_[value.name()] = &value.type();
    for (const auto& value : graph.value_info()) types_[value.name()] = &value.type();
    for (const auto& value : graph.output()) types_[value.name()] = &value.type();
    for (const auto& init : graph.initializer())
      if (auto value = from_proto(init)) values_[init.name()] = std::move(*value);
    for (const auto& node : graph.node())
      if (node.output_size() >= 1 && !node.output(0).empty())
        if (auto value = fold(node)) values_[node.output(0)] = std::move(*value);
  }

  Values take() { return std::move(values_); }

 private:
  const IntTensor* input(const onnx::NodeProto& node, int index) const {
    if (index >= node.input_size() || node.input(index).empty()) return nullptr;
    const auto it = values_.find(node.input(index));
    return it == values_.end() ? nullptr : &it->second;
  }

  // An int list given as an attribute (older opsets) or as an input (newer ones).
  std::optional<std::vector<int64_t>> ints(const onnx::NodeProto& node, const std::string& attr, int index) const {
    if (const auto* a = find_attr(node, attr)) return std::vector<int64_t>(a->ints().begin(), a->ints().end());
    if (const auto* in = input(node, index)) return in->values;
    return std::nullopt;
  }

  std::optional<IntTensor> fold(const onnx::NodeProto& node) const {
    static const std::map<std::string, std::optional<IntTensor> (Folder::*)(const onnx::NodeProto&) const> ops = {
        {"Constant", &Folder::constant}, {"Shape", &Folder::shape},   {"Gather", &Folder::gather},
        {"Unsqueeze", &Folder::unsqueeze}, {"Squeeze", &Folder::squeeze}, {"Concat", &Folder::concat},
        {"Slice", &Folder::slice},       {"Cast", &Folder::cast},     {"Identity", &Folder::identity},
        {"Add", &Folder::arithmetic},    {"Sub", &Folder::arithmetic}, {"Mul", &Folder::arithmetic},
        {"Div", &Folder::arithmetic}};
    if (!node.domain().empty() && node.domain() != "ai.onnx") return std::nullopt;
    const auto it = ops.find(node.op_type());
    return it == ops.end() ? std::nullopt : (this->*it->second)(node);
  }

  std::optional<IntTensor> constant(const onnx::NodeProto& node) const {
    if (const auto* a = find_attr(node, "value")) return from_proto(a->t());
    if (const auto* a = find_attr(node, "value_int")) return IntTensor{T::INT64, {}, {a->i()}};
    if (const auto* a = find_attr(node, "value_ints"))
      return vector_of({a->ints().begin(), a->ints().end()});
    return std::nullopt;
  }

  std::optional<IntTensor> shape(const onnx::NodeProto& node) const {
    const auto type = types_.find(node.input(0));
    if (type == types_.end()) return std::nullopt;
    const auto dims = known_shape(*type->second);
    if (!dims) return std::nullopt;
    const auto rank = static_cast<int64_t>(dims->size());
    const auto clamp = [rank](int64_t i) { return std::clamp(i < 0 ? i + rank : i, int64_t{0}, rank); };
    const auto start = clamp(int_attr(node, "start", 0));
    const auto end = clamp(int_attr(node, "end", rank));
    if (start >= end) return vector_of({});
    return vector_of({dims->begin() + start, dims->begin() + end});
  }

  std::optional<IntTensor> gather(const onnx::NodeProto& node) const {
    const auto* data = input(node, 0);
    const auto* indices = input(node, 1);
    if (!data || !indices || data->dims.size() != 1 || !normalize_axis(int_attr(node, "axis", 0), 1))
      return std::nullopt;
    IntTensor out{data->elem_type, indices->dims, {}};
    for (auto i : indices->values) {
      const auto index = normalize_axis(i, data->dims[0]);
      if (!index) return std::nullopt;
      out.values.push_back(data->values[*index]);
    }
    return out;
  }

  std::optional<IntTensor> unsqueeze(const onnx::NodeProto& node) const {
    const auto* data = input(node, 0);
    const auto axes = ints(node, "axes", 1);
    if (!data || !axes) return std::nullopt;
    const auto rank = static_cast<int64_t>(data->dims.size() + axes->size());
    std::vector<int64_t> sorted;
    for (auto axis : *axes) {
      const auto a = normalize_axis(axis, rank);
      if (!a) return std::nullopt;
      sorted.push_back(*a);
    }
    std::sort(sorted.begin(), sorted.end());
    IntTensor out = *data;
    for (auto a : sorted) {
      if (a > static_cast<int64_t>(out.dims.size())) return std::nullopt;
      out.dims.insert(out.dims.begin() + a, 1);
    }
    return out;
  }

  std::optional<IntTensor> squeeze(const onnx::NodeProto& node) const {
    const auto* data = input(node, 0);
    if (!data) return std::nullopt;
    const auto rank = static_cast<int64_t>(data->dims.size());
    std::vector<bool> drop(data->dims.size(), false);
    if (const auto axes = ints(node, "axes", 1)) {
      for (auto axis : *axes) {
        const auto a = normalize_axis(axis, rank);
        if (!a || data->dims[*a] != 1) return std::nullopt;
        drop[*a] = true;
      }
    } else {
      for (size_t i = 0; i < drop.size(); ++i) drop[i] = data->dims[i] == 1;
    }
    IntTensor out{data->elem_type, {}, data->values};
    for (size_t i = 0; i < drop.size(); ++i)
      if (!drop[i]) out.dims.push_back(data->dims[i]);
    return out;
  }

  std::optional<IntTensor> concat(const onnx::NodeProto& node) const {
    if (!normalize_axis(int_attr(node, "axis", 0), 1)) return std::nullopt;
    IntTensor out{T::INT64, {0}, {}};
    for (int i = 0; i < node.input_size(); ++i) {
      const auto* part = input(node, i);
      if (!part || part->dims.size() != 1) return std::nullopt;
      out.elem_type = part->elem_type;
      out.values.insert(out.values.end(), part->values.begin(), part->values.end());
    }
    out.dims[0] = static_cast<int64_t>(out.values.size());
    return out;
  }

  std::optional<IntTensor> slice(const onnx::NodeProto& node) const {
    const auto* data = input(node, 0);
    const auto starts = ints(node, "starts", 1);
    const auto ends = ints(node, "ends", 2);
    if (!data || data->dims.size() != 1 || !starts || !ends || starts->size() != 1 || ends->size() != 1)
      return std::nullopt;
    const auto axes = ints(node, "axes", 3);
    if (axes && (axes->size() != 1 || !normalize_axis(axes->front(), 1))) return std::nullopt;
    const auto steps = input(node, 4) ? input(node, 4)->values : std::vector<int64_t>{1};
    if (steps.size() != 1 || steps[0] == 0) return std::nullopt;

    // ONNX clamps out-of-range bounds rather than failing; INT64_MAX means "to the end".
    const int64_t n = data->dims[0], step = steps[0];
    if (n == 0) return vector_of({});
    const auto bound = [n](int64_t i, int64_t lo, int64_t hi) { return std::clamp(i < 0 ? i + n : i, lo, hi); };
    std::vector<int64_t> values;
    if (step > 0)
      for (auto i = bound(starts->front(), 0, n), end = bound(ends->front(), 0, n); i < end; i += step)
        values.push_back(data->values[i]);
    else
      for (auto i = bound(starts->front(), 0, n - 1), end = bound(ends->front(), -1, n - 1); i > end; i += step)
        values.push_back(data->values[i]);
    auto out = vector_of(std::move(values));
    out.elem_type = data->elem_type;
    return out;
  }

  std::optional<IntTensor> cast(const onnx::NodeProto& node) const {
    const auto* data = input(node, 0);
    const auto to = static_cast<int32_t>(int_attr(node, "to", 0));
    if (!data || !is_int(to)) return std::nullopt;
    IntTensor out = *data;
    out.elem_type = to;
    if (to == T::INT32)
      for (auto& v : out.values) v = static_cast<int32_t>(v);
    return out;
  }

  std::optional<IntTensor> identity(const onnx::NodeProto& node) const {
    const auto* data = input(node, 0);
    return data ? std::optional<IntTensor>(*data) : std::nullopt;
  }

  // Broadcasting only the shapes shape code uses: equal sizes, or one single number.
  std::optional<IntTensor> arithmetic(const onnx::NodeProto& node) const {
    const auto* a = input(node, 0);
    const auto* b = input(node, 1);
    if (!a || !b || a->elem_type != b->elem_type) return std::nullopt;
    const auto na = a->values.size(), nb = b->values.size();
    if (na != nb && na != 1 && nb != 1) return std::nullopt;
    IntTensor out = (na > nb || (na == nb && a->dims.size() >= b->dims.size())) ? *a : *b;
    const std::string& op = node.op_type();
    for (size_t i = 0; i < out.values.size(); ++i) {
      const int64_t x = a->values[na == 1 ? 0 : i], y = b->values[nb == 1 ? 0 : i];
      if (op == "Div" && y == 0) return std::nullopt;
      out.values[i] = op == "Add" ? x + y : op == "Sub" ? x - y : op == "Mul" ? x * y : x / y;
    }
    return out;
  }

  std::map<std::string, const onnx::TypeProto*> types_;
  Values values_;
};

}  // namespace

std::map<std::string, IntTensor> fold_shape_values(const onnx::GraphProto& graph) {
  return Folder(graph).take();
}

onnx::TensorProto to_initializer(const std::string& name, const IntTensor& tensor) {
  onnx::TensorProto proto;
  proto.set_name(name);
  proto.set_data_type(tensor.elem_type);
  for (auto d : tensor.dims) proto.add_dims(d);
  for (auto v : tensor.values) {
    if (tensor.elem_type == T::INT32) proto.add_int32_data(static_cast<int32_t>(v));
    else proto.add_int64_data(v);
  }
  return proto;
}

}  // namespace aoe::host
