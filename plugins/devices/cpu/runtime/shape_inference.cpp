#include "shape_inference.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "aoe/sdk/einsum_equation.h"
#include "aoe/sdk/reshape_dims.h"
#include "aoe/sdk/tensor_size.h"
#include "chain.h"
#include "op_factories.h"
#include "op_util.h"
#include "reduce_op.h"

namespace aoe::cpu {
namespace {

bool elementwise(const std::string& op_type) {
  static const std::set<std::string> ops = [] {
    std::set<std::string> s;
    for (const auto& t : elementwise_op_types()) s.insert(t);
    for (const auto& t : typed_eltwise_op_types()) s.insert(t);
    s.insert({"Where", "Cast", "CastLike", "Identity", "Dropout", "Softmax", "LogSoftmax", "Hardmax", "CumSum",
              "RandomUniformLike", "RandomNormalLike", "Bernoulli", "LpNormalization"});
    return s;
  }();
  return ops.count(op_type) > 0;
}

std::vector<int64_t> normalized_axes(std::vector<int64_t> axes, int64_t rank, const std::string& what) {
  for (auto& a : axes) a = normalize_axis(a, rank, what);
  return axes;
}

Shape reduced(const sdk::Node& node, const Shape& in) {
  const auto rank = static_cast<int64_t>(in.size());
  const bool keep = int_attr(node.attrs, "keepdims", 1) != 0;
  std::vector<int64_t> axes = ints_attr(node.attrs, "axes", {});
  if (node.op_type == "ArgMax" || node.op_type == "ArgMin") axes = {int_attr(node.attrs, "axis", 0)};
  if (axes.empty() && int_attr(node.attrs, "noop_with_empty_axes", 0) != 0) return in;
  std::set<int64_t> over;
  for (const int64_t a : normalized_axes(axes, rank, "node '" + node.name + "': axes")) over.insert(a);
  if (axes.empty())
    for (int64_t a = 0; a < rank; ++a) over.insert(a);
  Shape out;
  for (int64_t a = 0; a < rank; ++a)
    if (!over.count(a)) out.push_back(in[static_cast<size_t>(a)]);
    else if (keep) out.push_back(1);
  return out;
}

std::optional<Shape> one_output(const sdk::Node& node, const std::vector<Shape>& in) {
  const std::string& t = node.op_type;
  const std::string what = "node '" + node.name + "' (" + t + ")";
  if ((t == "RandomUniform" || t == "RandomNormal") && node.attrs.contains("shape")) return ints_attr(node.attrs, "shape", {});
  if (in.empty()) return std::nullopt;
  if (elementwise(t)) {
    if (t == "Where" || is_binary_op(t) || t == "Clip" || in.size() > 1) {
      std::vector<Shape> data = in;
      if (t == "Clip" || t == "CastLike" || t == "CumSum") data.resize(1);
      return broadcast(data, what);
    }
    return in[0];
  }
  const auto rank = static_cast<int64_t>(in[0].size());
  if (t == "Transpose") {
    std::vector<int64_t> perm = ints_attr(node.attrs, "perm", {});
    if (perm.empty())
      for (int64_t a = rank - 1; a >= 0; --a) perm.push_back(a);
    Shape out;
    for (const int64_t p : normalized_axes(perm, rank, what + ": perm")) out.push_back(in[0][static_cast<size_t>(p)]);
    return out;
  }
  if (t == "Squeeze" && node.attrs.contains("axes")) {
    const auto axes = normalized_axes(ints_attr(node.attrs, "axes", {}), rank, what + ": axes");
    Shape out;
    for (int64_t a = 0; a < rank; ++a)
      if (std::find(axes.begin(), axes.end(), a) == axes.end()) out.push_back(in[0][static_cast<size_t>(a)]);
    return out;
  }
  if (t == "Unsqueeze" && node.attrs.contains("axes")) {
    const auto axes_given = ints_attr(node.attrs, "axes", {});
    const auto out_rank = rank + static_cast<int64_t>(axes_given.size());
    const auto axes = normalized_axes(axes_given, out_rank, what + ": axes");
    Shape out;
    size_t next = 0;
    for (int64_t a = 0; a < out_rank; ++a)
      out.push_back(std::find(axes.begin(), axes.end(), a) != axes.end() ? 1 : in[0][next++]);
    return out;
  }
  if (t == "Flatten") {
    const int64_t axis = int_attr(node.attrs, "axis", 1);
    const auto at = static_cast<size_t>(axis < 0 ? axis + rank : axis);
    return Shape{dims_product(in[0], 0, at), dims_product(in[0], at, in[0].size())};
  }
  if (is_reduce_op(t) || t == "ArgMax" || t == "ArgMin") return reduced(node, in[0]);
  if (t == "Gather" && in.size() == 2) {
    const auto axis = static_cast<size_t>(normalize_axis(int_attr(node.attrs, "axis", 0), rank, what + ": axis"));
    Shape out(in[0].begin(), in[0].begin() + static_cast<std::ptrdiff_t>(axis));
    out.insert(out.end(), in[1].begin(), in[1].end());
    out.insert(out.end(), in[0].begin() + static_cast<std::ptrdiff_t>(axis) + 1, in[0].end());
    return out;
  }
  if (t == "Concat") {
    const auto axis = static_cast<size_t>(normalize_axis(int_attr(node.attrs, "axis", 0), rank, what + ": axis"));
    Shape out = in[0];
    for (size_t k = 1; k < in.size(); ++k) out[axis] += in[k].at(axis);
    return out;
  }
  if (t == "MatMul" && in.size() == 2 && !in[0].empty() && !in[1].empty()) {
    Shape a = in[0], b = in[1];
    const bool vector_a = a.size() == 1, vector_b = b.size() == 1;
    if (vector_a) a.insert(a.begin(), 1);
    if (vector_b) b.push_back(1);
    Shape out = broadcast({Shape(a.begin(), a.end() - 2), Shape(b.begin(), b.end() - 2)}, what);
    if (!vector_a) out.push_back(a[a.size() - 2]);
    if (!vector_b) out.push_back(b.back());
    return out;
  }
  if (t == "Shape") {
    int64_t start = int_attr(node.attrs, "start", 0), end = int_attr(node.attrs, "end", rank);
    if (start < 0) start += rank;
    if (end < 0) end += rank;
    start = std::clamp<int64_t>(start, 0, rank), end = std::clamp<int64_t>(end, 0, rank);
    return Shape{std::max<int64_t>(0, end - start)};
  }
  if (t == "Size") return Shape{};
  if (t == "Multinomial" && rank == 2) return Shape{in[0][0], int_attr(node.attrs, "sample_size", 1)};
  if (t == "Einsum") {
    std::string why;
    const auto labels = sdk::einsum_labels(string_attr(node.attrs, "equation", ""), in, &why);
    if (!labels) invalid(what + ": " + why);
    return labels->output_dims();
  }
  return std::nullopt;
}

// Each op's input slots whose values matter, and the attribute each becomes ("" for a
// value that sizes the output only). The gathers and scatters by element or
// row read their indices as they run, so none of theirs is here.
const std::map<std::string, std::vector<std::pair<size_t, const char*>>>& value_slots() {
  static const std::map<std::string, std::vector<std::pair<size_t, const char*>>> slots = [] {
    std::map<std::string, std::vector<std::pair<size_t, const char*>>> m = {
        {"Slice", {{1, "starts"}, {2, "ends"}, {3, "axes"}, {4, "steps"}}},
        {"Split", {{1, ""}}},
        {"RoiAlign", {{2, "batch_indices"}}},
        {"Resize", {{3, ""}}},
        {"Expand", {{1, "shape"}}},
        {"Tile", {{1, "repeats"}}},
        {"Squeeze", {{1, "axes"}}},
        {"Unsqueeze", {{1, "axes"}}},
        {"Pad", {{1, "pads"}}},
        {"TopK", {{1, ""}}},
        {"Reshape", {{1, ""}}},
        {"ConstantOfShape", {{0, ""}}},
        {"Range", {{0, ""}, {1, ""}, {2, ""}}}};
    for (const char* r : {"ReduceSum", "ReduceMax", "ReduceMin", "ReduceMean", "ReduceProd", "ReduceL1", "ReduceL2",
                          "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"})
      m[r] = {{1, "axes"}};
    return m;
  }();
  return slots;
}

// Slice's output dims, as ONNX defines them: each listed axis from its clamped start
// to its clamped end in steps.
Shape sliced(const Shape& in, const sdk::Node& node, const std::string& what) {
  const auto rank = static_cast<int64_t>(in.size());
  const auto starts = ints_attr(node.attrs, "starts", {}), ends = ints_attr(node.attrs, "ends", {});
  std::vector<int64_t> axes = ints_attr(node.attrs, "axes", {});
  if (axes.empty())
    for (size_t a = 0; a < starts.size(); ++a) axes.push_back(static_cast<int64_t>(a));
  const auto steps = ints_attr(node.attrs, "steps", std::vector<int64_t>(starts.size(), 1));
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    invalid(what + ": starts, ends, axes and steps differ in length");
  Shape out = in;
  for (size_t i = 0; i < starts.size(); ++i) {
    const auto a = static_cast<size_t>(normalize_axis(axes[i], rank, what + ": axes"));
    const int64_t d = in[a], step = steps[i];
    if (step == 0) invalid(what + ": a step of 0");
    const auto clamp = [&](int64_t v) {
      if (v < 0) v += d;
      return step > 0 ? std::clamp<int64_t>(v, 0, d) : std::clamp<int64_t>(v, -1, d - 1);
    };
    const int64_t b = clamp(starts[i]), e = clamp(ends[i]);
    out[a] = step > 0 ? std::max<int64_t>(0, (e - b + step - 1) / step) : std::max<int64_t>(0, (b - e - step - 1) / -step);
  }
  return out;
}

// Reshape's target with 0 (copy the input's dim, unless allowzero) and -1 (what is left) resolved.
Shape reshaped(const Shape& in, std::vector<int64_t> target, bool allow_zero, const std::string& what) {
  std::string why;
  auto out = sdk::reshape_dims(in, std::move(target), allow_zero, &why);
  if (!out) invalid(what + ": " + why);
  return *out;
}

// Conv's, ConvTranspose's and the pools' output of an input [N, C, spatial...], as ONNX
// defines it: the kernel from kernel_shape or the weights, pads, strides, dilations, auto_pad.
std::optional<Shape> windowed(const sdk::Node& node, const std::vector<Shape>& in, const std::string& what) {
  const std::string& t = node.op_type;
  const bool conv = t == "Conv" || t == "ConvTranspose", transpose = t == "ConvTranspose";
  if (in[0].size() < 3 || (conv && (in.size() < 2 || in[1].size() != in[0].size()))) return std::nullopt;
  const size_t spatial = in[0].size() - 2;
  std::vector<int64_t> kernel = ints_attr(node.attrs, "kernel_shape", {});
  if (kernel.empty() && conv) kernel.assign(in[1].begin() + 2, in[1].end());
  const auto per_axis = [&](const char* key, int64_t fallback) {
    auto v = ints_attr(node.attrs, key, std::vector<int64_t>(spatial, fallback));
    if (v.size() != spatial) invalid(what + ": " + key + " lists " + std::to_string(v.size()) + " values for " + std::to_string(spatial) + " axes");
    return v;
  };
  if (kernel.size() != spatial) invalid(what + ": a kernel of " + std::to_string(kernel.size()) + " axes for " + std::to_string(spatial));
  const auto strides = per_axis("strides", 1), dilations = per_axis("dilations", 1), extra = per_axis("output_padding", 0);
  auto pads = ints_attr(node.attrs, "pads", std::vector<int64_t>(2 * spatial, 0));
  if (pads.size() != 2 * spatial) invalid(what + ": pads lists " + std::to_string(pads.size()) + " values");
  const std::string auto_pad = node.attrs.is_object() ? node.attrs.value("auto_pad", std::string("NOTSET")) : "NOTSET";
  const bool ceil_mode = int_attr(node.attrs, "ceil_mode", 0) != 0, same = auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER";
  // The attributes come from a file and the dims from values: every step is
  // checked (checked_mul and checked_add take no negative operand).
  const auto checked = [&](std::optional<int64_t> v) {
    if (!v) invalid(what + ": its window arithmetic overflows int64 or takes a negative pad");
    return *v;
  };
  const auto up = [](int64_t a, int64_t b) { return a / b + (a % b != 0); };
  const int64_t channels = !conv ? in[0][1] : transpose ? checked(sdk::checked_mul(in[1][1], int_attr(node.attrs, "group", 1))) : in[1][0];
  Shape out{in[0][0], channels};
  for (size_t a = 0; a < spatial; ++a) {
    const int64_t x = in[0][a + 2], s = strides[a];
    if (s < 1) invalid(what + ": a stride below 1");
    if (kernel[a] < 1 || dilations[a] < 1) invalid(what + ": a kernel dim or a dilation below 1");
    const int64_t span = checked(sdk::checked_add(checked(sdk::checked_mul(dilations[a], kernel[a] - 1)), 1));
    const auto pad = [&] { return checked(sdk::checked_add(pads[a], pads[a + spatial])); };
    int64_t dim = 0;
    if (transpose) {
      dim = same ? checked(sdk::checked_mul(x, s))
                 : checked(sdk::checked_add(checked(sdk::checked_mul(s, x)), checked(sdk::checked_add(extra[a], span)))) - s - pad();
    } else if (same) {
      dim = up(x, s);
    } else {
      const int64_t room = (auto_pad == "VALID" ? x : checked(sdk::checked_add(x, pad()))) - span;
      dim = room < 0 ? 0 : (ceil_mode ? up(room, s) : room / s) + 1;
    }
    if (dim < 0) invalid(what + ": its pads leave an output dim of " + std::to_string(dim));
    out.push_back(dim);
  }
  return out;
}

// The output shapes of the ops sized by their inputs' values, once those are known;
// nothing where a value they need is not.
std::optional<std::vector<Shape>> valued_outputs(const sdk::Node& node, const std::vector<Shape>& in,
                                                 const SlotValues& values) {
  const std::string& t = node.op_type;
  const std::string what = "node '" + node.name + "' (" + t + ")";
  const auto known = [&](std::initializer_list<size_t> slots) {
    return std::all_of(slots.begin(), slots.end(), [&](size_t s) { return values.count(s) > 0; });
  };
  if (t == "ConstantOfShape" && known({0})) return std::vector<Shape>{values.at(0)};
  if (t == "Range" && known({0, 1, 2})) {
    const int64_t start = values.at(0).at(0), limit = values.at(1).at(0), delta = values.at(2).at(0);
    if (delta == 0) invalid(what + ": a delta of 0");
    int64_t span = 0;
    if (__builtin_sub_overflow(limit, start, &span)) invalid(what + ": limit - start overflows int64");
    // ceil(span / delta) where it is positive, written so no step overflows.
    const int64_t count = delta > 0 ? (span > 0 ? (span - 1) / delta + 1 : 0) : (span < 0 ? (span + 1) / delta + 1 : 0);
    return std::vector<Shape>{Shape{count}};
  }
  if (in.empty()) return std::nullopt;
  if (t == "Resize" && known({3})) {
    if (values.at(3).size() != in[0].size()) invalid(what + ": " + std::to_string(values.at(3).size()) + " sizes for rank " + std::to_string(in[0].size()));
    return std::vector<Shape>{values.at(3)};
  }
  if (t == "Resize" && node.attrs.is_object() && node.attrs.contains("scales")) {  // constant scales: each dim floor(d * scale)
    const auto& scales = node.attrs.at("scales");
    if (!scales.is_array() || scales.size() != in[0].size()) invalid(what + ": scales of another rank than the input's");
    Shape out = in[0];
    for (size_t a = 0; a < out.size(); ++a) {
      const double d = std::floor(static_cast<double>(out[a]) * scales[a].get<double>());
      if (!(d >= 0 && d <= static_cast<double>(kMaxRunTimeValues))) invalid(what + ": a scale gives a dim of " + std::to_string(d));
      out[a] = static_cast<int64_t>(d);
    }
    return std::vector<Shape>{out};
  }
  if (t == "Pad" && node.attrs.contains("pads")) {
    const auto pads = ints_attr(node.attrs, "pads", {});
    Shape out = in[0];
    if (pads.size() != 2 * out.size()) invalid(what + ": " + std::to_string(pads.size()) + " pads for rank " + std::to_string(out.size()));
    for (size_t a = 0; a < out.size(); ++a)
      if (__builtin_add_overflow(out[a], pads[a], &out[a]) || __builtin_add_overflow(out[a], pads[a + out.size()], &out[a]))
        invalid(what + ": pads " + to_string(pads) + " overflow int64");
    return std::vector<Shape>{out};
  }
  if (t == "Slice" && node.attrs.contains("starts") && node.attrs.contains("ends"))
    return std::vector<Shape>{sliced(in[0], node, what)};
  if (t == "Reshape" && known({1}))
    return std::vector<Shape>{reshaped(in[0], values.at(1), int_attr(node.attrs, "allowzero", 0) != 0, what)};
  if (t == "Expand" && known({1})) return std::vector<Shape>{broadcast({in[0], values.at(1)}, what)};
  if (t == "Tile" && known({1})) {
    const auto& repeats = values.at(1);
    if (repeats.size() != in[0].size())
      invalid(what + ": " + std::to_string(repeats.size()) + " repeats for rank " + std::to_string(in[0].size()));
    Shape out = in[0];
    for (size_t i = 0; i < out.size(); ++i) {
      const auto tiled = sdk::checked_mul(out[i], repeats[i]);
      if (!tiled) invalid(what + ": repeats " + to_string(repeats) + " are negative or overflow int64");
      out[i] = *tiled;
    }
    return std::vector<Shape>{out};
  }
  if (t == "TopK" && known({1})) {
    const auto& k = values.at(1);
    Shape out = in[0];
    if (k.size() != 1 || out.empty()) invalid(what + ": K must be one value, of a tensor of rank 1 or more");
    const auto axis = static_cast<size_t>(normalize_axis(int_attr(node.attrs, "axis", -1), static_cast<int64_t>(out.size()), what));
    if (k[0] < 0 || k[0] > out[axis])
      invalid(what + ": K " + std::to_string(k[0]) + " for an axis of " + std::to_string(out[axis]));
    out[axis] = k[0];
    return std::vector<Shape>{out, out};
  }
  if (t == "Split") {
    Shape part = in[0];
    const auto axis = static_cast<size_t>(normalize_axis(int_attr(node.attrs, "axis", 0), static_cast<int64_t>(part.size()), what));
    const auto count = static_cast<int64_t>(node.outputs.size());
    std::vector<int64_t> sizes = values.count(1) ? values.at(1) : ints_attr(node.attrs, "split", {});
    if (sizes.empty()) {  // equal parts, the last smaller where they do not divide (Split-18's rule, which -13's equal parts meet)
      const int64_t each = (part[axis] + count - 1) / count;
      for (int64_t i = 0; i < count; ++i) sizes.push_back(std::max<int64_t>(0, std::min(each, part[axis] - i * each)));
    }
    if (static_cast<int64_t>(sizes.size()) != count) invalid(what + ": " + std::to_string(sizes.size()) + " sizes for " + std::to_string(count) + " outputs");
    std::vector<Shape> out;
    for (const int64_t size : sizes) {
      part[axis] = size;
      out.push_back(part);
    }
    return out;
  }
  if (t == "Conv" || t == "ConvTranspose" || t == "MaxPool" || t == "AveragePool" || t == "LpPool") {
    if (auto out = windowed(node, in, what)) return std::vector<Shape>(t == "MaxPool" ? 2 : 1, *out);
    return std::nullopt;
  }
  if ((t == "ScatterElements" || t == "Scatter" || t == "ScatterND") && in.size() == 3) return std::vector<Shape>{in[0]};
  if (t == "Gemm" && in.size() >= 2 && in[0].size() == 2 && in[1].size() == 2) {
    const bool ta = int_attr(node.attrs, "transA", 0) != 0, tb = int_attr(node.attrs, "transB", 0) != 0;
    return std::vector<Shape>{{in[0][ta ? 1 : 0], in[1][tb ? 0 : 1]}};
  }
  if (t == "GatherElements" && in.size() == 2) return std::vector<Shape>{in[1]};
  if (t == "MaxRoiPool" && in.size() == 2 && in[0].size() == 4 && !in[1].empty()) {
    const auto pooled = ints_attr(node.attrs, "pooled_shape", {1, 1});
    if (pooled.size() == 2) return std::vector<Shape>{{in[1][0], in[0][1], pooled[0], pooled[1]}};
  }
  if (t == "GlobalLpPool" && !in.empty() && in[0].size() >= 3) {
    Shape out = in[0];
    std::fill(out.begin() + 2, out.end(), 1);
    return std::vector<Shape>{out};
  }
  if (t == "RoiAlign" && in.size() >= 2 && in[0].size() == 4 && !in[1].empty()) {
    return std::vector<Shape>{{in[1][0], in[0][1], int_attr(node.attrs, "output_height", 1), int_attr(node.attrs, "output_width", 1)}};
  }
  if (t == "GatherND" && in.size() == 2 && !in[1].empty()) {
    const auto batch = static_cast<size_t>(int_attr(node.attrs, "batch_dims", 0));
    const auto depth = static_cast<size_t>(in[1].back());
    if (batch + depth > in[0].size())
      invalid(what + ": indices of depth " + std::to_string(depth) + " for data of rank " + std::to_string(in[0].size()));
    Shape out(in[1].begin(), in[1].end() - 1);
    out.insert(out.end(), in[0].begin() + static_cast<std::ptrdiff_t>(batch + depth), in[0].end());
    return std::vector<Shape>{out};
  }
  return std::nullopt;
}

}  // namespace

std::vector<size_t> value_input_slots(const sdk::Node& node) {
  std::vector<size_t> out;
  if (const auto it = value_slots().find(node.op_type); it != value_slots().end())
    for (const auto& [slot, attr] : it->second)
      if (slot < node.inputs.size() && !node.inputs[slot].empty() && !(*attr && node.attrs.contains(attr))) out.push_back(slot);
  return out;
}

std::vector<size_t> run_time_value_slots(const sdk::Graph& graph, const sdk::Node& node) {
  std::vector<size_t> out;
  for (const size_t slot : value_input_slots(node)) {
    const auto it = graph.tensors.find(node.inputs[slot]);
    if (it != graph.tensors.end() && it->second.constant) continue;  // the frontend made it an attribute
    const auto type = it == graph.tensors.end() ? sdk::DType::undefined : it->second.dtype;
    if (sdk::is_float(type)) continue;  // values as whole numbers only
    out.push_back(slot);
  }
  return out;
}

bool has_value_inputs(const std::string& op_type) { return value_slots().count(op_type) > 0; }

sdk::Node with_value_attributes(sdk::Node node, const SlotValues& values) {
  const auto it = value_slots().find(node.op_type);
  if (it == value_slots().end()) return node;
  for (const auto& [slot, attr] : it->second)
    if (*attr && values.count(slot)) node.attrs[attr] = ints_attribute(values.at(slot));
  return node;
}

std::string shape_inference_ops() {
  return "it infers the elementwise ops, Where, Cast, Identity, Transpose, Squeeze and Unsqueeze, Flatten, the "
         "reductions, ArgMax, ArgMin, Gather, GatherND, GatherElements, the scatters, RoiAlign, Conv, ConvTranspose, the "
         "pools, Concat, Split, MatMul, Gemm, "
         "Shape and Size, and from the values "
         "computed before them Slice, Pad, Resize, TopK, Reshape, Expand, Tile, ConstantOfShape and Range";
}

std::optional<std::vector<Shape>> infer_output_shapes(const sdk::Graph& graph, const sdk::Node& node,
                                                      const std::vector<Shape>& inputs, const SlotValues& values) {
  const auto outs = present(node.outputs);
  std::vector<Shape> declared;
  for (const auto& o : outs)
    if (graph.tensors.count(o) && graph.tensor(o).fully_known()) declared.push_back(graph.tensor(o).shape);
  if (declared.size() == outs.size()) return declared;
  if (auto valued = valued_outputs(node, inputs, values); valued && valued->size() >= outs.size()) {
    valued->resize(outs.size());
    for (const Shape& shape : *valued)
      if (const auto n = sdk::checked_elements(shape); !n || *n > kMaxRunTimeValues)
        invalid("node '" + node.name + "' (" + node.op_type + "): the values computed as the model ran give it an output of shape " +
                to_string(shape) + "; the cpu device holds at most " + std::to_string(kMaxRunTimeValues) + " values with no negative dim");
    return valued;
  }
  // A Dropout's mask, like its output, has the input's shape.
  if (outs.size() != 1 && node.op_type != "Dropout") return std::nullopt;
  const auto shape = one_output(node, inputs);
  if (!shape) return std::nullopt;
  return std::vector<Shape>(outs.size(), *shape);
}

}  // namespace aoe::cpu
