#include "shape_inference.h"

#include <algorithm>
#include <set>

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
    s.insert({"Where", "Cast", "CastLike", "Identity", "Dropout", "Softmax", "LogSoftmax", "Hardmax", "CumSum"});
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
  return std::nullopt;
}

}  // namespace

std::string shape_inference_ops() {
  return "it infers the elementwise ops, Where, Cast, Identity, Transpose, Squeeze and Unsqueeze (axes as attributes), "
         "Flatten, the reductions, ArgMax, ArgMin, Gather, Concat, MatMul, Shape and Size";
}

std::optional<std::vector<Shape>> infer_output_shapes(const sdk::Graph& graph, const sdk::Node& node,
                                                      const std::vector<Shape>& inputs) {
  const auto outs = present(node.outputs);
  std::vector<Shape> declared;
  for (const auto& o : outs)
    if (graph.tensors.count(o) && graph.tensor(o).fully_known()) declared.push_back(graph.tensor(o).shape);
  if (declared.size() == outs.size()) return declared;
  // A Dropout's mask, like its output, has the input's shape.
  if (outs.size() != 1 && node.op_type != "Dropout") return std::nullopt;
  const auto shape = one_output(node, inputs);
  if (!shape) return std::nullopt;
  return std::vector<Shape>(outs.size(), *shape);
}

}  // namespace aoe::cpu
