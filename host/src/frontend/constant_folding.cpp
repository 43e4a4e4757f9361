// Evaluates constant subgraphs node by node, in the graph's topological order.
#include "constant_folding.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "aoe/sdk/reshape_dims.h"
#include "aoe/sdk/tensor_size.h"

namespace aoe::host {
namespace {

using Values = std::map<std::string, KnownTensor>;
using T = onnx::TensorProto;
using Index = std::vector<int64_t>;

bool is_real_type(int32_t t) { return t == T::FLOAT || t == T::DOUBLE; }

bool is_int_type(int32_t t) {
  switch (t) {
    case T::INT8: case T::INT16: case T::INT32: case T::INT64:
    case T::UINT8: case T::UINT16: case T::UINT32: case T::UINT64: case T::BOOL: return true;
    default: return false;
  }
}

bool foldable_type(int32_t t) { return is_real_type(t) || is_int_type(t); }

// The elements of `dims`, within max_elements. The dims other than 0 stay
// within it too: a tensor of no elements still has strides and indices
// that multiply them.
std::optional<int64_t> element_count(const std::vector<int64_t>& dims, int64_t max_elements) {
  int64_t count = 1, nonzero = 1;
  for (auto d : dims) {
    if (d < 0 || (d > 0 && nonzero > max_elements / d)) return std::nullopt;
    if (d > 0) nonzero *= d;
    count = d == 0 ? 0 : count * d;
  }
  return count;
}

// Row-major strides of `dims`.
Index strides_of(const std::vector<int64_t>& dims) {
  Index s(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * dims[i];
  return s;
}

// Each element of `raw` (stored as V) as an Out.
template <typename V, typename Out = int64_t>
std::vector<Out> read_raw(const std::string& raw) {
  std::vector<Out> values(raw.size() / sizeof(V));
  for (size_t i = 0; i < values.size(); ++i) {
    V v;
    std::memcpy(&v, raw.data() + i * sizeof(V), sizeof(V));  // raw_data is little-endian, as is the host
    values[i] = static_cast<Out>(v);
  }
  return values;
}

std::vector<int64_t> read_raw_ints(int32_t type, const std::string& raw) {
  switch (type) {
    case T::INT8: return read_raw<int8_t>(raw);
    case T::INT16: return read_raw<int16_t>(raw);
    case T::INT32: return read_raw<int32_t>(raw);
    case T::UINT8: case T::BOOL: return read_raw<uint8_t>(raw);
    case T::UINT16: return read_raw<uint16_t>(raw);
    case T::UINT32: return read_raw<uint32_t>(raw);
    case T::UINT64: return read_raw<uint64_t>(raw);
    default: return read_raw<int64_t>(raw);
  }
}

// Where the typed fields keep an integer type's values (int32_data holds the narrow ones).
std::vector<int64_t> typed_ints(const T& t) {
  switch (t.data_type()) {
    case T::INT64: return {t.int64_data().begin(), t.int64_data().end()};
    case T::UINT32: case T::UINT64: return {t.uint64_data().begin(), t.uint64_data().end()};
    default: return {t.int32_data().begin(), t.int32_data().end()};
  }
}

// The value an element of `type` holds once stored: integers wrap to the type's width,
// floats round to single precision.
int64_t wrap_int(int32_t type, int64_t v) {
  switch (type) {
    case T::INT8: return static_cast<int8_t>(v);
    case T::INT16: return static_cast<int16_t>(v);
    case T::INT32: return static_cast<int32_t>(v);
    case T::UINT8: return static_cast<uint8_t>(v);
    case T::UINT16: return static_cast<uint16_t>(v);
    case T::UINT32: return static_cast<uint32_t>(v);
    case T::BOOL: return v != 0;
    default: return v;
  }
}

double round_real(int32_t type, double v) { return type == T::FLOAT ? static_cast<double>(static_cast<float>(v)) : v; }

// Negative axes count from the end, as everywhere in ONNX.
std::optional<int64_t> normalize_axis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank) return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

// A new tensor of `src`'s type and `dims` whose element i is src's element index[i].
KnownTensor pick(const KnownTensor& src, std::vector<int64_t> dims, const Index& index) {
  KnownTensor out{src.elem_type, std::move(dims), {}, {}};
  if (src.is_real()) {
    out.reals.reserve(index.size());
    for (auto i : index) out.reals.push_back(src.reals[static_cast<size_t>(i)]);
  } else {
    out.ints.reserve(index.size());
    for (auto i : index) out.ints.push_back(src.ints[static_cast<size_t>(i)]);
  }
  return out;
}

KnownTensor vector_of(std::vector<int64_t> values) {
  const auto n = static_cast<int64_t>(values.size());
  return {T::INT64, {n}, std::move(values), {}};
}

// Numpy broadcasting of several shapes: nullopt when they do not broadcast.
std::optional<std::vector<int64_t>> broadcast_dims(const std::vector<const std::vector<int64_t>*>& shapes) {
  size_t rank = 0;
  for (const auto* s : shapes) rank = std::max(rank, s->size());
  std::vector<int64_t> out(rank, 1);
  for (const auto* s : shapes)
    for (size_t i = 0; i < s->size(); ++i) {
      int64_t& o = out[rank - s->size() + i];
      const int64_t d = (*s)[i];
      if (d == o || d == 1) continue;
      if (o != 1) return std::nullopt;
      o = d;
    }
  return out;
}

// For each element of a tensor of `out` dims, the element of `in` (broadcast to it) it reads.
Index broadcast_index(const std::vector<int64_t>& in, const std::vector<int64_t>& out, int64_t count) {
  const Index in_strides = strides_of(in);
  const Index out_strides = strides_of(out);
  const size_t lead = out.size() - in.size();
  Index index(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    int64_t src = 0;
    for (size_t a = 0; a < in.size(); ++a) {
      const int64_t coord = (i / out_strides[lead + a]) % out[lead + a];
      if (in[a] != 1) src += coord * in_strides[a];
    }
    index[static_cast<size_t>(i)] = src;
  }
  return index;
}

// A number of an element, whichever vector holds it.
double real_at(const KnownTensor& t, size_t i) { return t.is_real() ? t.reals[i] : static_cast<double>(t.ints[i]); }

std::optional<int64_t> int_scalar(const KnownTensor* t) {
  if (!t || t->is_real() || t->ints.size() != 1) return std::nullopt;
  return t->ints[0];
}

class Folder {
 public:
  Folder(const onnx::GraphProto& graph, int64_t max_elements) : max_elements_(max_elements) {
    for (const auto& value : graph.input()) types_[value.name()] = &value.type();
    for (const auto& value : graph.value_info()) types_[value.name()] = &value.type();
    for (const auto& value : graph.output()) types_[value.name()] = &value.type();
    for (const auto& init : graph.initializer()) initializers_[init.name()] = &init;
    for (const auto& node : graph.node()) {
      if (!default_domain(node)) continue;
      if (node.output_size() < 1 || node.output(0).empty()) continue;
      if (node.op_type() == "Split") {
        fold_split(node);
        continue;
      }
      if (auto value = fold(node); value && element_count(value->dims, max_elements_) == int64_t(value->size()))
        values_[node.output(0)] = std::move(*value);
    }
  }

  Values take() { return std::move(values_); }

 private:
  using Op = std::optional<KnownTensor> (Folder::*)(const onnx::NodeProto&) const;

  const KnownTensor* input(const onnx::NodeProto& node, int index) const {
    if (index >= node.input_size() || node.input(index).empty()) return nullptr;
    const auto& name = node.input(index);
    if (const auto it = values_.find(name); it != values_.end()) return &it->second;
    if (const auto it = read_.find(name); it != read_.end()) return it->second ? &*it->second : nullptr;
    const auto init = initializers_.find(name);
    if (init == initializers_.end()) return nullptr;
    const auto& cached = read_[name] = read_known(*init->second, max_elements_);  // read once, when first needed
    return cached ? &*cached : nullptr;
  }

  // An int list given as an attribute (older opsets) or as an input (newer ones).
  std::optional<std::vector<int64_t>> ints(const onnx::NodeProto& node, const std::string& attr, int index) const {
    if (const auto* a = find_attr(node, attr)) return std::vector<int64_t>(a->ints().begin(), a->ints().end());
    if (const auto* in = input(node, index); in && !in->is_real()) return in->ints;
    return std::nullopt;
  }

  bool fits(const std::vector<int64_t>& dims) const { return element_count(dims, max_elements_).has_value(); }

  std::optional<KnownTensor> fold(const onnx::NodeProto& node) const {
    static const std::map<std::string, Op> ops = {
        {"Constant", &Folder::constant},   {"Shape", &Folder::shape},         {"Size", &Folder::size},
        {"Identity", &Folder::identity},   {"Cast", &Folder::cast},           {"Reshape", &Folder::reshape},
        {"Flatten", &Folder::flatten},     {"Squeeze", &Folder::squeeze},     {"Unsqueeze", &Folder::unsqueeze},
        {"Concat", &Folder::concat},       {"Gather", &Folder::gather},       {"Slice", &Folder::slice},
        {"Transpose", &Folder::transpose}, {"Expand", &Folder::expand},       {"Range", &Folder::range},
        {"ConstantOfShape", &Folder::constant_of_shape},                      {"Where", &Folder::where},
        {"Not", &Folder::unary},           {"Neg", &Folder::unary},           {"Abs", &Folder::unary},
        {"Sqrt", &Folder::unary},          {"Floor", &Folder::unary},         {"Ceil", &Folder::unary},
        {"Reciprocal", &Folder::unary},    {"Relu", &Folder::unary},          {"Add", &Folder::binary},          {"Sub", &Folder::binary},
        {"Mul", &Folder::binary},          {"Div", &Folder::binary},          {"Pow", &Folder::binary},
        {"Max", &Folder::binary},          {"Min", &Folder::binary},          {"Equal", &Folder::binary},
        {"Less", &Folder::binary},         {"Greater", &Folder::binary},      {"And", &Folder::binary},
        {"Or", &Folder::binary},           {"Mod", &Folder::binary},          {"ReduceMax", &Folder::reduce},
        {"ReduceMin", &Folder::reduce},    {"ReduceSum", &Folder::reduce},    {"ReduceProd", &Folder::reduce},
        {"ReduceMean", &Folder::reduce}};
    const auto it = ops.find(node.op_type());
    return it == ops.end() ? std::nullopt : (this->*it->second)(node);
  }

  std::optional<KnownTensor> constant(const onnx::NodeProto& node) const {
    if (const auto* a = find_attr(node, "value")) return read_known(a->t(), max_elements_);
    if (const auto* a = find_attr(node, "value_int")) return KnownTensor{T::INT64, {}, {a->i()}, {}};
    if (const auto* a = find_attr(node, "value_ints")) return vector_of({a->ints().begin(), a->ints().end()});
    if (const auto* a = find_attr(node, "value_float")) return KnownTensor{T::FLOAT, {}, {}, {a->f()}};
    if (const auto* a = find_attr(node, "value_floats"))
      return KnownTensor{T::FLOAT, {a->floats_size()}, {}, {a->floats().begin(), a->floats().end()}};
    return std::nullopt;
  }

  std::optional<std::vector<int64_t>> shape_of(const std::string& name) const {
    if (const auto it = values_.find(name); it != values_.end()) return it->second.dims;
    if (const auto it = initializers_.find(name); it != initializers_.end())
      return std::vector<int64_t>(it->second->dims().begin(), it->second->dims().end());
    const auto type = types_.find(name);
    if (type == types_.end()) return std::nullopt;
    return known_shape(*type->second);
  }

  std::optional<KnownTensor> shape(const onnx::NodeProto& node) const {
    const auto dims = shape_of(node.input(0));
    if (!dims) return std::nullopt;
    const auto rank = static_cast<int64_t>(dims->size());
    const auto clamp = [rank](int64_t i) { return std::clamp(i < 0 ? i + rank : i, int64_t{0}, rank); };
    const auto start = clamp(int_attr(node, "start", 0));
    const auto end = clamp(int_attr(node, "end", rank));
    if (start >= end) return vector_of({});
    return vector_of({dims->begin() + start, dims->begin() + end});
  }

  std::optional<KnownTensor> size(const onnx::NodeProto& node) const {
    const auto dims = shape_of(node.input(0));
    if (!dims) return std::nullopt;
    const auto count = element_count(*dims, std::numeric_limits<int64_t>::max());
    if (!count) return std::nullopt;
    return KnownTensor{T::INT64, {}, {*count}, {}};
  }

  std::optional<KnownTensor> identity(const onnx::NodeProto& node) const {
    const auto* data = input(node, 0);
    return data ? std::optional<KnownTensor>(*data) : std::nullopt;
  }

  std::optional<KnownTensor> cast(const onnx::NodeProto& node) const {
    const auto* data = input(node, 0);
    const auto to = static_cast<int32_t>(int_attr(node, "to", 0));
    if (!data || !foldable_type(to)) return std::nullopt;
    KnownTensor out{to, data->dims, {}, {}};
    if (is_real_type(to)) {
      for (size_t i = 0; i < data->size(); ++i) out.reals.push_back(round_real(to, real_at(*data, i)));
      return out;
    }
    for (size_t i = 0; i < data->size(); ++i) {
      if (!data->is_real()) {
        out.ints.push_back(wrap_int(to, data->ints[i]));
        continue;
      }
      const double v = data->reals[i];
      // Out of int64's range or NaN: what the cast gives is not defined; left to the device.
      if (to != T::BOOL && !(std::fabs(v) < 9.2e18)) return std::nullopt;
      out.ints.push_back(to == T::BOOL ? v != 0 : wrap_int(to, static_cast<int64_t>(v)));  // truncates toward 0
    }
    return out;
  }

  std::optional<KnownTensor> reshaped(const onnx::NodeProto& node, std::vector<int64_t> dims) const {
    const auto* data = input(node, 0);
    if (!data) return std::nullopt;
    KnownTensor out = *data;
    out.dims = std::move(dims);
    const auto count = element_count(out.dims, max_elements_);
    if (!count || *count != static_cast<int64_t>(out.size())) return std::nullopt;
    return out;
  }

  std::optional<KnownTensor> reshape(const onnx::NodeProto& node) const {
    const auto* data = input(node, 0);
    const auto target = ints(node, "shape", 1);
    if (!data || !target) return std::nullopt;
    auto dims = sdk::reshape_dims(data->dims, *target, int_attr(node, "allowzero", 0) != 0);
    if (!dims) return std::nullopt;
    return reshaped(node, std::move(*dims));
  }

  std::optional<KnownTensor> flatten(const onnx::NodeProto& node) const {
    const auto* data = input(node, 0);
    if (!data) return std::nullopt;
    const auto rank = static_cast<int64_t>(data->dims.size());
    int64_t axis = int_attr(node, "axis", 1);
    if (axis < -rank || axis > rank) return std::nullopt;
    if (axis < 0) axis += rank;
    std::optional<int64_t> outer = 1;
    for (int64_t a = 0; a < axis && outer; ++a) outer = sdk::checked_mul(*outer, data->dims[static_cast<size_t>(a)]);
    if (!outer) return std::nullopt;
    return reshaped(node, {*outer, *outer ? static_cast<int64_t>(data->size()) / *outer : 0});
  }

  std::optional<KnownTensor> unsqueeze(const onnx::NodeProto& node) const {
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
    std::vector<int64_t> dims = data->dims;
    for (auto a : sorted) {
      if (a > static_cast<int64_t>(dims.size())) return std::nullopt;
      dims.insert(dims.begin() + a, 1);
    }
    return reshaped(node, std::move(dims));
  }

  std::optional<KnownTensor> squeeze(const onnx::NodeProto& node) const {
    const auto* data = input(node, 0);
    if (!data) return std::nullopt;
    const auto rank = static_cast<int64_t>(data->dims.size());
    std::vector<bool> drop(data->dims.size(), false);
    if (const auto axes = ints(node, "axes", 1)) {
      for (auto axis : *axes) {
        const auto a = normalize_axis(axis, rank);
        if (!a || data->dims[static_cast<size_t>(*a)] != 1) return std::nullopt;
        drop[static_cast<size_t>(*a)] = true;
      }
    } else {
      for (size_t i = 0; i < drop.size(); ++i) drop[i] = data->dims[i] == 1;
    }
    std::vector<int64_t> dims;
    for (size_t i = 0; i < drop.size(); ++i)
      if (!drop[i]) dims.push_back(data->dims[i]);
    return reshaped(node, std::move(dims));
  }

  // Reductions of constants: torchvision's detectors take the largest of their images' sizes
  // (ReduceMax of a constant list) to pad the batch to.
  std::optional<KnownTensor> reduce(const onnx::NodeProto& node) const {
    const auto* x = input(node, 0);
    if (!x || x->elem_type == T::BOOL || x->size() == 0) return std::nullopt;
    const bool axes_input = node.input_size() > 1 && !node.input(1).empty();
    if (axes_input && (!input(node, 1) || input(node, 1)->is_real())) return std::nullopt;  // axes known as the model runs
    const std::vector<int64_t> axes = ints(node, "axes", 1).value_or(std::vector<int64_t>{});
    if (axes.empty() && int_attr(node, "noop_with_empty_axes", 0) != 0) return *x;
    const auto rank = static_cast<int64_t>(x->dims.size());
    std::vector<bool> reduced(x->dims.size(), axes.empty());
    for (auto axis : axes) {
      const auto a = normalize_axis(axis, rank);
      if (!a) return std::nullopt;
      reduced[static_cast<size_t>(*a)] = true;
    }
    const bool keep = int_attr(node, "keepdims", 1) != 0;
    std::vector<int64_t> dims, kept_dims;  // the output's, and the kept axes' sizes in order
    for (size_t d = 0; d < reduced.size(); ++d) {
      if (!reduced[d]) kept_dims.push_back(x->dims[d]);
      if (!reduced[d] || keep) dims.push_back(reduced[d] ? 1 : x->dims[d]);
    }
    const std::string& op = node.op_type();
    const size_t outputs = static_cast<size_t>(element_count(kept_dims, max_elements_).value_or(0));
    std::vector<double> acc(outputs, op == "ReduceMax"   ? -std::numeric_limits<double>::infinity()
                                     : op == "ReduceMin" ? std::numeric_limits<double>::infinity()
                                     : op == "ReduceProd" ? 1.0 : 0.0);
    std::vector<int64_t> index(x->dims.size(), 0);
    for (size_t i = 0; i < x->size(); ++i) {
      size_t o = 0;  // the output element this one reduces into: its kept coordinates, row-major
      for (size_t d = 0; d < index.size(); ++d)
        if (!reduced[d]) o = o * static_cast<size_t>(x->dims[d]) + static_cast<size_t>(index[d]);
      const double v = real_at(*x, i);
      acc[o] = op == "ReduceMax" ? std::max(acc[o], v) : op == "ReduceMin" ? std::min(acc[o], v)
             : op == "ReduceProd" ? acc[o] * v : acc[o] + v;
      for (size_t d = index.size(); d-- > 0 && ++index[d] == x->dims[d];) index[d] = 0;
    }
    KnownTensor out{x->elem_type, dims, {}, {}};
    const double count = static_cast<double>(x->size()) / static_cast<double>(std::max<size_t>(outputs, 1));
    for (double v : acc) {
      if (op == "ReduceMean") v /= count;
      if (out.is_real()) out.reals.push_back(round_real(out.elem_type, v));
      else if (std::abs(v) < 9.0e15) out.ints.push_back(wrap_int(out.elem_type, static_cast<int64_t>(v)));  // exact in a double
      else return std::nullopt;
    }
    return out;
  }

  std::optional<KnownTensor> concat(const onnx::NodeProto& node) const {
    std::vector<const KnownTensor*> parts;
    for (int i = 0; i < node.input_size(); ++i) {
      const auto* part = input(node, i);
      if (!part || (!parts.empty() && (part->elem_type != parts[0]->elem_type ||
                                       part->dims.size() != parts[0]->dims.size())))
        return std::nullopt;
      parts.push_back(part);
    }
    if (parts.empty()) return std::nullopt;
    const auto axis = normalize_axis(int_attr(node, "axis", 0), static_cast<int64_t>(parts[0]->dims.size()));
    if (!axis) return std::nullopt;
    const auto a = static_cast<size_t>(*axis);
    std::vector<int64_t> dims = parts[0]->dims;
    dims[a] = 0;
    for (const auto* p : parts) {
      for (size_t i = 0; i < dims.size(); ++i)
        if (i != a && p->dims[i] != dims[i]) return std::nullopt;
      dims[a] += p->dims[a];
    }
    if (!fits(dims)) return std::nullopt;
    int64_t outer = 1;
    for (size_t i = 0; i < a; ++i) outer *= dims[i];
    KnownTensor out{parts[0]->elem_type, dims, {}, {}};
    for (int64_t o = 0; o < outer; ++o)
      for (const auto* p : parts) {
        const int64_t chunk = outer ? static_cast<int64_t>(p->size()) / outer : 0;
        if (p->is_real()) out.reals.insert(out.reals.end(), p->reals.begin() + o * chunk, p->reals.begin() + (o + 1) * chunk);
        else out.ints.insert(out.ints.end(), p->ints.begin() + o * chunk, p->ints.begin() + (o + 1) * chunk);
      }
    return out;
  }

  // Split, the one op of several outputs here: its parts by the `split`
  // attribute (before opset 13) or input, else equal parts, the last the
  // smaller where they do not divide (opset 18's num_outputs).
  void fold_split(const onnx::NodeProto& node) {
    const auto* data = input(node, 0);
    if (!data) return;
    const auto rank = static_cast<int64_t>(data->dims.size());
    const auto axis = normalize_axis(int_attr(node, "axis", 0), rank);
    if (!axis) return;
    const auto a = static_cast<size_t>(*axis);
    const int64_t length = data->dims[a], parts = node.output_size();
    const bool sizes_given = find_attr(node, "split") || (node.input_size() > 1 && !node.input(1).empty());
    const auto given = ints(node, "split", 1);
    if (sizes_given && !given) return;  // sizes known only as the model runs
    std::vector<int64_t> sizes = given.value_or(std::vector<int64_t>{});
    if (sizes.empty() && parts > 0) {
      const int64_t chunk = (length + parts - 1) / parts;
      for (int64_t k = 0; k < parts; ++k) sizes.push_back(std::clamp<int64_t>(length - k * chunk, 0, chunk));
    }
    int64_t total = 0;
    for (const int64_t size : sizes) {
      if (size < 0) return;
      total += size;
    }
    if (static_cast<int64_t>(sizes.size()) != parts || total != length) return;
    const Index in_strides = strides_of(data->dims);
    int64_t offset = 0;
    for (int64_t k = 0; k < parts; ++k) {
      std::vector<int64_t> dims = data->dims;
      dims[a] = sizes[static_cast<size_t>(k)];
      const auto count = element_count(dims, max_elements_);
      if (!count) return;
      const Index out_strides = strides_of(dims);
      Index index(static_cast<size_t>(*count));
      for (int64_t i = 0; i < *count; ++i) {
        int64_t src = 0;
        for (size_t d = 0; d < dims.size(); ++d)
          src += ((i / out_strides[d]) % dims[d] + (d == a ? offset : 0)) * in_strides[d];
        index[static_cast<size_t>(i)] = src;
      }
      if (!node.output(static_cast<int>(k)).empty()) values_[node.output(static_cast<int>(k))] = pick(*data, std::move(dims), index);
      offset += sizes[static_cast<size_t>(k)];
    }
  }

  std::optional<KnownTensor> gather(const onnx::NodeProto& node) const {
    const auto* data = input(node, 0);
    const auto* indices = input(node, 1);
    if (!data || !indices || indices->is_real() || data->dims.empty()) return std::nullopt;
    const auto rank = static_cast<int64_t>(data->dims.size());
    const auto axis = normalize_axis(int_attr(node, "axis", 0), rank);
    if (!axis) return std::nullopt;
    const auto a = static_cast<size_t>(*axis);
    std::vector<int64_t> dims(data->dims.begin(), data->dims.begin() + *axis);
    dims.insert(dims.end(), indices->dims.begin(), indices->dims.end());
    dims.insert(dims.end(), data->dims.begin() + *axis + 1, data->dims.end());
    const auto count = element_count(dims, max_elements_);
    if (!count) return std::nullopt;
    int64_t outer = 1, inner = 1;
    for (size_t i = 0; i < a; ++i) outer *= data->dims[i];
    for (size_t i = a + 1; i < data->dims.size(); ++i) inner *= data->dims[i];
    Index index;
    index.reserve(static_cast<size_t>(*count));
    for (int64_t o = 0; o < outer; ++o)
      for (auto i : indices->ints) {
        const auto at = normalize_axis(i, data->dims[a]);
        if (!at) return std::nullopt;
        for (int64_t k = 0; k < inner; ++k) index.push_back((o * data->dims[a] + *at) * inner + k);
      }
    return pick(*data, std::move(dims), index);
  }

  std::optional<KnownTensor> slice(const onnx::NodeProto& node) const {
    const auto* data = input(node, 0);
    const auto starts = ints(node, "starts", 1);
    const auto ends = ints(node, "ends", 2);
    if (!data || !starts || !ends || starts->size() != ends->size()) return std::nullopt;
    const auto rank = static_cast<int64_t>(data->dims.size());
    std::vector<int64_t> axes = ints(node, "axes", 3).value_or(std::vector<int64_t>{});
    if (axes.empty())
      for (size_t i = 0; i < starts->size(); ++i) axes.push_back(static_cast<int64_t>(i));
    std::vector<int64_t> steps(starts->size(), 1);
    if (const auto* s = input(node, 4)) {
      if (s->is_real()) return std::nullopt;
      steps = s->ints;
    }
    if (axes.size() != starts->size() || steps.size() != starts->size()) return std::nullopt;
    // Per axis: first element and step; ONNX clamps bounds rather than failing.
    std::vector<int64_t> first(data->dims.size(), 0), step(data->dims.size(), 1), dims = data->dims;
    for (size_t k = 0; k < axes.size(); ++k) {
      const auto a = normalize_axis(axes[k], rank);
      if (!a || steps[k] == 0) return std::nullopt;
      const auto ax = static_cast<size_t>(*a);
      const int64_t n = data->dims[ax], st = steps[k];
      const auto bound = [n](int64_t i, int64_t lo, int64_t hi) { return std::clamp(i < 0 ? i + n : i, lo, hi); };
      int64_t begin, end;
      if (st > 0) begin = bound((*starts)[k], 0, n), end = bound((*ends)[k], 0, n);
      else begin = bound((*starts)[k], 0, n - 1), end = bound((*ends)[k], -1, n - 1);
      const int64_t len = st > 0 ? (end - begin + st - 1) / st : (begin - end - st - 1) / -st;
      first[ax] = begin, step[ax] = st, dims[ax] = std::max<int64_t>(len, 0);
    }
    const auto count = element_count(dims, max_elements_);
    if (!count) return std::nullopt;
    const Index in_strides = strides_of(data->dims), out_strides = strides_of(dims);
    Index index(static_cast<size_t>(*count));
    for (int64_t i = 0; i < *count; ++i) {
      int64_t src = 0;
      for (size_t a = 0; a < dims.size(); ++a) src += (first[a] + ((i / out_strides[a]) % dims[a]) * step[a]) * in_strides[a];
      index[static_cast<size_t>(i)] = src;
    }
    return pick(*data, std::move(dims), index);
  }

  std::optional<KnownTensor> transpose(const onnx::NodeProto& node) const {
    const auto* data = input(node, 0);
    if (!data) return std::nullopt;
    const size_t rank = data->dims.size();
    std::vector<int64_t> perm;
    if (const auto* p = find_attr(node, "perm")) perm.assign(p->ints().begin(), p->ints().end());
    else
      for (size_t i = rank; i-- > 0;) perm.push_back(static_cast<int64_t>(i));
    std::vector<int64_t> sorted = perm;
    std::sort(sorted.begin(), sorted.end());
    for (size_t i = 0; i < sorted.size(); ++i)
      if (sorted.size() != rank || sorted[i] != static_cast<int64_t>(i)) return std::nullopt;
    std::vector<int64_t> dims;
    for (auto p : perm) dims.push_back(data->dims[static_cast<size_t>(p)]);
    const Index in_strides = strides_of(data->dims), out_strides = strides_of(dims);
    Index index(data->size());
    for (int64_t i = 0; i < static_cast<int64_t>(index.size()); ++i) {
      int64_t src = 0;
      for (size_t a = 0; a < rank; ++a) src += ((i / out_strides[a]) % dims[a]) * in_strides[static_cast<size_t>(perm[a])];
      index[static_cast<size_t>(i)] = src;
    }
    return pick(*data, std::move(dims), index);
  }

  std::optional<KnownTensor> expand(const onnx::NodeProto& node) const {
    const auto* data = input(node, 0);
    const auto* shape = input(node, 1);
    if (!data || !shape || shape->is_real()) return std::nullopt;
    const auto dims = broadcast_dims({&data->dims, &shape->ints});
    if (!dims) return std::nullopt;
    const auto count = element_count(*dims, max_elements_);
    if (!count) return std::nullopt;
    return pick(*data, *dims, broadcast_index(data->dims, *dims, *count));
  }

  std::optional<KnownTensor> range(const onnx::NodeProto& node) const {
    const auto* start = input(node, 0);
    const auto* limit = input(node, 1);
    const auto* delta = input(node, 2);
    if (!start || !limit || !delta || start->size() != 1 || limit->size() != 1 || delta->size() != 1) return std::nullopt;
    const double s = real_at(*start, 0), l = real_at(*limit, 0), d = real_at(*delta, 0);
    if (d == 0 || !std::isfinite(s) || !std::isfinite(l) || !std::isfinite(d)) return std::nullopt;
    const double n = std::max(std::ceil((l - s) / d), 0.0);
    if (n > static_cast<double>(max_elements_)) return std::nullopt;
    KnownTensor out{start->elem_type, {static_cast<int64_t>(n)}, {}, {}};
    for (int64_t i = 0; i < static_cast<int64_t>(n); ++i) {
      if (start->is_real()) out.reals.push_back(round_real(out.elem_type, s + static_cast<double>(i) * d));
      else out.ints.push_back(start->ints[0] + i * delta->ints[0]);
    }
    return out;
  }

  std::optional<KnownTensor> constant_of_shape(const onnx::NodeProto& node) const {
    const auto* shape = input(node, 0);
    if (!shape || shape->is_real()) return std::nullopt;
    const auto count = element_count(shape->ints, max_elements_);
    if (!count) return std::nullopt;
    KnownTensor fill{T::FLOAT, {}, {}, {0.0}};
    if (const auto* a = find_attr(node, "value")) {
      const auto value = read_known(a->t(), 1);
      if (!value || value->size() != 1) return std::nullopt;
      fill = *value;
    }
    return pick(fill, shape->ints, Index(static_cast<size_t>(*count), 0));
  }

  std::optional<KnownTensor> where(const onnx::NodeProto& node) const {
    const auto* cond = input(node, 0);
    const auto* x = input(node, 1);
    const auto* y = input(node, 2);
    if (!cond || !x || !y || cond->is_real() || x->elem_type != y->elem_type) return std::nullopt;
    const auto dims = broadcast_dims({&cond->dims, &x->dims, &y->dims});
    if (!dims) return std::nullopt;
    const auto count = element_count(*dims, max_elements_);
    if (!count) return std::nullopt;
    const Index ci = broadcast_index(cond->dims, *dims, *count);
    const KnownTensor xs = pick(*x, *dims, broadcast_index(x->dims, *dims, *count));
    KnownTensor out = pick(*y, *dims, broadcast_index(y->dims, *dims, *count));
    for (size_t i = 0; i < ci.size(); ++i) {
      if (!cond->ints[static_cast<size_t>(ci[i])]) continue;
      if (out.is_real()) out.reals[i] = xs.reals[i];
      else out.ints[i] = xs.ints[i];
    }
    return out;
  }

  std::optional<KnownTensor> unary(const onnx::NodeProto& node) const {
    const auto* x = input(node, 0);
    if (!x) return std::nullopt;
    const std::string& op = node.op_type();
    KnownTensor out = *x;
    if (op == "Not") {
      if (x->elem_type != T::BOOL) return std::nullopt;
      for (auto& v : out.ints) v = !v;
    } else if (op == "Neg" || op == "Abs") {
      const auto f = [&](auto v) { return op == "Neg" ? -v : (v < 0 ? -v : v); };
      for (auto& v : out.reals) v = f(v);
      for (auto& v : out.ints) {
        if (v == std::numeric_limits<int64_t>::min()) return std::nullopt;
        v = wrap_int(out.elem_type, f(v));
      }
    } else if (op == "Relu") {  // a count clamped at 0, as Range's expansion computes its trip count
      for (auto& v : out.reals) v = v < 0 ? 0.0 : v;
      for (auto& v : out.ints) v = v < 0 ? 0 : v;
    } else {
      if (!x->is_real()) return std::nullopt;
      const std::map<std::string, double (*)(double)> fns = {
          {"Sqrt", [](double v) { return std::sqrt(v); }},  {"Floor", [](double v) { return std::floor(v); }},
          {"Ceil", [](double v) { return std::ceil(v); }},   {"Reciprocal", [](double v) { return 1.0 / v; }}};
      for (auto& v : out.reals) v = round_real(out.elem_type, fns.at(op)(v));
    }
    return out;
  }

  std::optional<KnownTensor> binary(const onnx::NodeProto& node) const {
    // Mod's sign: the divisor's (Python's %, exporters' shape arithmetic), or with fmod the dividend's (C's).
    const std::string op = node.op_type() == "Mod" && int_attr(node, "fmod", 0) != 0 ? "FMod" : node.op_type();
    if (node.input_size() != 2) return std::nullopt;  // Max and Min of one or three inputs: left to the device
    const auto* a = input(node, 0);
    const auto* b = a ? input(node, 1) : nullptr;  // a weight is read only when the other side is known
    if (!a || !b || (a->elem_type != b->elem_type && op != "Pow")) return std::nullopt;
    const bool logic = op == "And" || op == "Or";
    if (logic != (a->elem_type == T::BOOL)) return std::nullopt;
    const auto dims = broadcast_dims({&a->dims, &b->dims});
    if (!dims) return std::nullopt;
    const auto count = element_count(*dims, max_elements_);
    if (!count) return std::nullopt;
    const KnownTensor x = pick(*a, *dims, broadcast_index(a->dims, *dims, *count));
    const KnownTensor y = pick(*b, *dims, broadcast_index(b->dims, *dims, *count));
    const bool compare = op == "Equal" || op == "Less" || op == "Greater";
    KnownTensor out{compare ? T::BOOL : a->elem_type, *dims, {}, {}};
    for (size_t i = 0; i < static_cast<size_t>(*count); ++i) {
      if (compare) {
        const double u = real_at(x, i), v = real_at(y, i);
        const bool r = x.is_real() ? (op == "Equal" ? u == v : op == "Less" ? u < v : u > v)
                                   : (op == "Equal" ? x.ints[i] == y.ints[i]
                                      : op == "Less" ? x.ints[i] < y.ints[i] : x.ints[i] > y.ints[i]);
        out.ints.push_back(r);
      } else if (out.is_real()) {
        const double u = x.reals[i], v = real_at(y, i);
        if (op == "Mod") return std::nullopt;  // ONNX requires fmod for floats
        const double r = op == "Add" ? u + v : op == "Sub" ? u - v : op == "Mul" ? u * v : op == "Div" ? u / v
                       : op == "Pow" ? std::pow(u, v) : op == "FMod" ? std::fmod(u, v)
                       : op == "Max" ? std::max(u, v) : std::min(u, v);
        out.reals.push_back(round_real(out.elem_type, r));
      } else {
        const auto r = int_op(op, x.ints[i], y.is_real() ? 0 : y.ints[i]);
        if (!r || y.is_real()) return std::nullopt;
        out.ints.push_back(wrap_int(out.elem_type, *r));
      }
    }
    return out;
  }

  // Integer arithmetic as ONNX does it (Div truncates; Mod takes the divisor's sign, FMod the dividend's),
  // nullopt where it overflows or divides by 0.
  static std::optional<int64_t> int_op(const std::string& op, int64_t x, int64_t y) {
    int64_t r = 0;
    if (op == "And") return x && y;
    if (op == "Or") return x || y;
    if (op == "Max") return std::max(x, y);
    if (op == "Min") return std::min(x, y);
    if (op == "Add") return __builtin_add_overflow(x, y, &r) ? std::nullopt : std::optional(r);
    if (op == "Sub") return __builtin_sub_overflow(x, y, &r) ? std::nullopt : std::optional(r);
    if (op == "Mul") return __builtin_mul_overflow(x, y, &r) ? std::nullopt : std::optional(r);
    if (op == "Div" || op == "Mod" || op == "FMod") {
      if (y == 0 || (x == std::numeric_limits<int64_t>::min() && y == -1)) return std::nullopt;
      if (op == "Div") return x / y;
      const int64_t rem = x % y;  // C's: the dividend's sign
      return op == "Mod" && rem != 0 && ((rem < 0) != (y < 0)) ? rem + y : rem;
    }
    if (op == "Pow") {
      if (y < 0) return std::nullopt;
      int64_t p = 1;
      for (int64_t k = 0; k < y; ++k)
        if (__builtin_mul_overflow(p, x, &p)) return std::nullopt;
      return p;
    }
    return std::nullopt;
  }

  int64_t max_elements_;
  std::map<std::string, const onnx::TypeProto*> types_;
  std::map<std::string, const onnx::TensorProto*> initializers_;
  mutable std::map<std::string, std::optional<KnownTensor>> read_;
  Values values_;
};

}  // namespace

bool KnownTensor::is_real() const { return is_real_type(elem_type); }

namespace {

// `dims` where every one is known, else nullopt.
std::optional<std::vector<int64_t>> all_known(std::optional<std::vector<int64_t>> dims) {
  if (dims && std::any_of(dims->begin(), dims->end(), [](int64_t d) { return d < 0; })) return std::nullopt;
  return dims;
}

}  // namespace

std::optional<std::vector<int64_t>> ranked_shape(const onnx::TypeProto& type) {
  if (!type.has_tensor_type() || !type.tensor_type().has_shape()) return std::nullopt;
  std::vector<int64_t> dims;
  for (const auto& dim : type.tensor_type().shape().dim())
    dims.push_back(dim.has_dim_value() && dim.dim_value() >= 0 ? dim.dim_value() : -1);
  return dims;
}

std::optional<std::vector<int64_t>> known_shape(const onnx::TypeProto& type) { return all_known(ranked_shape(type)); }

std::optional<std::vector<int64_t>> ranked_dims(const onnx::GraphProto& graph, const std::string& name) {
  for (const auto* list : {&graph.input(), &graph.value_info(), &graph.output()})
    for (const auto& v : *list)
      if (v.name() == name) return ranked_shape(v.type());
  for (const auto& init : graph.initializer())  // a weight the graph does not list as an input
    if (init.name() == name) return std::vector<int64_t>(init.dims().begin(), init.dims().end());
  return std::nullopt;
}

std::optional<std::vector<int64_t>> known_dims(const onnx::GraphProto& graph, const std::string& name) {
  return all_known(ranked_dims(graph, name));
}

onnx::NodeProto make_node(const std::string& op, const std::string& name, const std::vector<std::string>& inputs,
                          const std::vector<std::string>& outputs) {
  onnx::NodeProto node;
  node.set_op_type(op), node.set_name(name);
  for (const auto& in : inputs) node.add_input(in);
  for (const auto& out : outputs) node.add_output(out);
  return node;
}

bool default_domain(const onnx::NodeProto& node) { return node.domain().empty() || node.domain() == "ai.onnx"; }

const onnx::AttributeProto* find_attr(const onnx::NodeProto& node, const std::string& name) {
  for (const auto& attr : node.attribute())
    if (attr.name() == name) return &attr;
  return nullptr;
}

int64_t int_attr(const onnx::NodeProto& node, const std::string& name, int64_t fallback) {
  const auto* attr = find_attr(node, name);
  return attr ? attr->i() : fallback;
}

std::string node_label(const onnx::NodeProto& node) {
  return node.name().empty() ? (node.output_size() ? node.output(0) : node.op_type()) : node.name();
}

void drop_attr(onnx::NodeProto& node, const std::string& name) {
  auto* attrs = node.mutable_attribute();
  attrs->erase(std::remove_if(attrs->begin(), attrs->end(), [&](const auto& a) { return a.name() == name; }),
               attrs->end());
}

std::optional<KnownTensor> read_known(const onnx::TensorProto& tensor, int64_t max_elements) {
  const int32_t type = tensor.data_type();
  if (!foldable_type(type) || tensor.data_location() == T::EXTERNAL) return std::nullopt;
  KnownTensor out{type, {tensor.dims().begin(), tensor.dims().end()}, {}, {}};
  const auto count = element_count(out.dims, max_elements);
  if (!count) return std::nullopt;
  if (tensor.has_raw_data()) {
    if (type == T::FLOAT) out.reals = read_raw<float, double>(tensor.raw_data());
    else if (type == T::DOUBLE) out.reals = read_raw<double, double>(tensor.raw_data());
    else out.ints = read_raw_ints(type, tensor.raw_data());
  } else if (type == T::FLOAT) {
    out.reals.assign(tensor.float_data().begin(), tensor.float_data().end());
  } else if (type == T::DOUBLE) {
    out.reals.assign(tensor.double_data().begin(), tensor.double_data().end());
  } else {
    out.ints = typed_ints(tensor);
  }
  if (static_cast<int64_t>(out.size()) != *count) return std::nullopt;
  for (auto& v : out.ints) v = wrap_int(type, v);
  return out;
}

std::map<std::string, KnownTensor> fold_known_values(const onnx::GraphProto& graph, int64_t max_elements) {
  return Folder(graph, max_elements).take();
}

std::map<std::string, const onnx::TensorProto*> initializers_by_name(const onnx::GraphProto& graph) {
  std::map<std::string, const onnx::TensorProto*> initializers;
  for (const auto& init : graph.initializer()) initializers[init.name()] = &init;
  return initializers;
}

std::optional<int64_t> constant_int(const std::map<std::string, const onnx::TensorProto*>& initializers,
                                    const std::string& name) {
  const auto it = initializers.find(name);
  if (it == initializers.end()) return std::nullopt;
  const auto value = read_known(*it->second, 1);
  if (!value || value->is_real() || value->ints.size() != 1) return std::nullopt;
  return value->ints[0];
}

onnx::TensorProto to_initializer(const std::string& name, const KnownTensor& tensor) {
  onnx::TensorProto proto;
  proto.set_name(name);
  proto.set_data_type(tensor.elem_type);
  for (auto d : tensor.dims) proto.add_dims(d);
  switch (tensor.elem_type) {
    case T::FLOAT:
      for (auto v : tensor.reals) proto.add_float_data(static_cast<float>(v));
      break;
    case T::DOUBLE:
      for (auto v : tensor.reals) proto.add_double_data(v);
      break;
    case T::INT64:
      for (auto v : tensor.ints) proto.add_int64_data(v);
      break;
    case T::UINT32: case T::UINT64:
      for (auto v : tensor.ints) proto.add_uint64_data(static_cast<uint64_t>(v));
      break;
    default:
      for (auto v : tensor.ints) proto.add_int32_data(static_cast<int32_t>(v));
  }
  return proto;
}

}  // namespace aoe::host
