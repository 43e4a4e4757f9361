#include "copy_kernels.h"

#include <algorithm>

#include "op_source.h"

namespace aoe::cuda {
namespace {

OpKernel read_kernel(const IndexWalk& walk, const GpuLimits& limits, int output = 0) {
  OpKernel k = walk_kernel(walk, "", "    y[e] = x0[o0];\n", limits);
  k.inputs = {0};
  k.output = output;
  return k;
}

std::vector<OpKernel> transpose(const OpNode& n, const GpuLimits& limits) {
  const Dims x = n.in_shape(0);
  std::vector<int64_t> perm = n.ints_attr("perm");
  if (perm.empty())
    for (size_t d = x.size(); d-- > 0;) perm.push_back(static_cast<int64_t>(d));
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  for (size_t d = 0; d < sorted.size(); ++d)
    if (sorted.size() != x.size() || sorted[d] != static_cast<int64_t>(d)) n.invalid("perm is not a permutation of the input's " + std::to_string(x.size()) + " dims");
  const Dims in_strides = strides_of(x);
  IndexWalk walk{{}, {{}}, {0}};
  for (auto p : perm) {
    walk.dims.push_back(x[static_cast<size_t>(p)]);
    walk.strides[0].push_back(in_strides[static_cast<size_t>(p)]);
  }
  return {read_kernel(walk, limits)};
}

// Concat: each input's elements, written at its offset along the axis of y.
std::vector<OpKernel> concat(const OpNode& n, const GpuLimits& limits) {
  const Dims out = n.out_shape(0);
  const int64_t axis = n.axis_attr("axis", 0, static_cast<int64_t>(out.size()));
  const Dims out_strides = strides_of(out);
  std::vector<OpKernel> kernels;
  int64_t offset = 0;
  for (size_t i = 0; i < n.input_count(); ++i) {
    const Dims in = n.in_shape(i);
    if (in.size() != out.size()) n.invalid("input " + std::to_string(i) + " of " + to_string(in) + " for an output of " + to_string(out));
    if (element_count(in) > 0) {
      IndexWalk walk{in, {out_strides}, {offset * out_strides[static_cast<size_t>(axis)]}};
      OpKernel k = walk_kernel(walk, "", "    y[o0] = x0[e];\n", limits);
      k.inputs = {static_cast<int>(i)};
      kernels.push_back(k);
    }
    offset += in[static_cast<size_t>(axis)];
  }
  if (offset != out[static_cast<size_t>(axis)]) n.invalid("inputs add up to " + std::to_string(offset) + " along axis " + std::to_string(axis) + ", the output has " + std::to_string(out[static_cast<size_t>(axis)]));
  return kernels;
}

// Split: each output, read from its offset along the axis of x0.
std::vector<OpKernel> split(const OpNode& n, const GpuLimits& limits) {
  const Dims x = n.in_shape(0);
  const int64_t axis = n.axis_attr("axis", 0, static_cast<int64_t>(x.size()));
  const Dims in_strides = strides_of(x);
  std::vector<OpKernel> kernels;
  int64_t offset = 0;
  for (size_t j = 0; j < n.output_count(); ++j) {
    if (n.node().outputs[j].empty()) continue;
    const Dims out = n.out_shape(j);
    if (out.size() != x.size()) n.invalid("output " + std::to_string(j) + " of " + to_string(out) + " for an input of " + to_string(x));
    if (element_count(out) > 0) kernels.push_back(read_kernel({out, {in_strides}, {offset * in_strides[static_cast<size_t>(axis)]}}, limits, static_cast<int>(j)));
    offset += out[static_cast<size_t>(axis)];
  }
  return kernels;
}

// ONNX Slice's start of one axis: negative from the end, clamped to what the step can reach.
int64_t slice_start(int64_t start, int64_t extent, int64_t step) {
  if (start < 0) start += extent;
  return step > 0 ? std::clamp<int64_t>(start, 0, extent) : std::clamp<int64_t>(start, 0, extent - 1);
}

std::vector<OpKernel> slice(const OpNode& n, const GpuLimits& limits) {
  const Dims x = n.in_shape(0), out = n.out_shape(0);
  const auto rank = static_cast<int64_t>(x.size());
  if (!n.has_attr("starts") || !n.has_attr("ends"))
    n.unsupported("starts and ends must be constants (the frontend makes them attributes); they are computed at run time here");
  if (n.has_input(3) && !n.has_attr("axes")) n.unsupported("axes must be a constant");
  if (n.has_input(4) && !n.has_attr("steps")) n.unsupported("steps must be a constant");
  const auto starts = n.ints_attr("starts");
  std::vector<int64_t> axes = n.ints_attr("axes"), steps = n.ints_attr("steps");
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (axes.size() != starts.size() || steps.size() != starts.size()) n.invalid("starts, axes and steps differ in length");
  const Dims in_strides = strides_of(x);
  IndexWalk walk{out, {in_strides}, {0}};
  for (size_t i = 0; i < starts.size(); ++i) {
    int64_t a = axes[i] < 0 ? axes[i] + rank : axes[i];
    if (a < 0 || a >= rank) n.invalid("axis " + std::to_string(axes[i]) + " is out of range for rank " + std::to_string(rank));
    if (steps[i] == 0) n.invalid("a step of 0");
    const auto d = static_cast<size_t>(a);
    walk.bases[0] += slice_start(starts[i], x[d], steps[i]) * in_strides[d];
    walk.strides[0][d] = steps[i] * in_strides[d];
  }
  if (out.size() != x.size()) n.invalid("output of " + to_string(out) + " for an input of " + to_string(x));
  return {read_kernel(walk, limits)};
}

// Gather: y[outer, j, inner] = x0[outer, index j, inner], the indices a
// constant array of the source where the node holds them, else x1 (floats
// holding whole numbers). An index out of range gives NaN: a kernel cannot stop the run.
std::vector<OpKernel> gather(const OpNode& n, const GpuLimits& limits) {
  const Dims x = n.in_shape(0);
  if (x.empty()) n.invalid("cannot gather from a scalar");
  const int64_t axis = n.axis_attr("axis", 0, static_cast<int64_t>(x.size()));
  const Dims idx = n.in_shape(1);
  const int64_t count = element_count(idx), extent = x[static_cast<size_t>(axis)];
  int64_t inner = 1;
  for (size_t d = static_cast<size_t>(axis) + 1; d < x.size(); ++d) inner *= x[d];
  std::string defines = define("COUNT", count) + define("EXTENT", extent) + define("INNER", inner);
  OpKernel k;
  std::string index_of = "x1[j]";
  if (n.has_attr("indices")) {
    const auto values = n.ints_attr("indices");
    if (static_cast<int64_t>(values.size()) != count) n.invalid(std::to_string(values.size()) + " indices for an indices input of " + to_string(idx));
    if (count > 4096) n.unsupported("more than 4096 constant indices");
    defines += "__device__ const float aoe_indices[" + std::to_string(std::max<int64_t>(count, 1)) + "] = {";
    for (size_t j = 0; j < values.size(); ++j) defines += (j ? ", " : "") + std::to_string(values[j]);
    defines += "};\n";
    index_of = "aoe_indices[j]";
  }
  const std::string body =
      "    const INDEX i = e % INNER, j = (e / INNER) % COUNT, outer = e / INNER / COUNT;\n"
      "    float at = " + index_of + ";\n"
      "    if (at < 0.0f) at += EXTENT;\n"
      "    y[e] = at >= 0.0f && at < EXTENT ? x0[(outer * EXTENT + (INDEX)at) * INNER + i] : __int_as_float(0x7fc00000);\n";
  const Dims out = n.out_shape(0);
  k = walk_kernel({{element_count(out)}, {}, {}}, defines, body, limits);
  k.inputs = n.has_attr("indices") ? std::vector<int>{0} : std::vector<int>{0, 1};
  return {k};
}

// Pad (constant, edge, reflect) and Tile: per dim, the output coordinate mapped into the input's.
std::vector<OpKernel> pad_or_tile(const OpNode& n, const GpuLimits& limits) {
  const Dims x = n.in_shape(0), out = n.out_shape(0);
  const auto rank = x.size();
  if (out.size() != rank) n.invalid("output of " + to_string(out) + " for an input of " + to_string(x));
  const bool tile = n.op() == "Tile";
  std::vector<int64_t> pads(2 * rank, 0);
  std::string mode = "constant";
  OpKernel k;
  k.inputs = {0};
  std::string value = "0.0f";
  if (!tile) {
    if (!n.has_attr("pads")) n.unsupported("pads must be a constant (the frontend makes it an attribute)");
    const auto given = n.ints_attr("pads");
    if (n.has_attr("axes") || n.has_input(3)) n.unsupported("the axes input (opset 18)");
    if (given.size() != 2 * rank) n.invalid(std::to_string(given.size()) + " pads for rank " + std::to_string(rank));
    pads = given;
    mode = n.string_attr("mode", "constant");
    if (mode != "constant" && mode != "edge" && mode != "reflect") n.unsupported("mode \"" + mode + "\"");
    if (n.has_attr("value")) value = float_literal(n.float_attr("value", 0));
    else if (n.has_input(2)) value = operand(k, 2) + "[0]";
  }
  std::string defines = define("PAD_VALUE", value);
  const Dims in_strides = strides_of(x);
  std::string body = "    INDEX rest = e, o0 = 0;\n    bool inside = true;\n";
  for (size_t d = rank; d-- > 0;) {
    const std::string s = std::to_string(d);
    defines += define("IN_" + s, x[d]) + define("OUT_" + s, out[d]) + define("BEFORE_" + s, pads[d]) + define("STRIDE_" + s, in_strides[d]);
    body += "    { INDEX c = rest % OUT_" + s + "; rest /= OUT_" + s + ";";
    if (tile) body += " c %= IN_" + s + ";";
    else if (mode == "constant") body += " c -= BEFORE_" + s + "; inside = inside && c >= 0 && c < IN_" + s + ";";
    else if (mode == "edge") body += " c -= BEFORE_" + s + "; c = c < 0 ? 0 : c >= IN_" + s + " ? IN_" + s + " - 1 : c;";
    else body += " c -= BEFORE_" + s + "; if (c < 0) c = -c; if (c >= IN_" + s + ") c = 2 * (IN_" + s + " - 1) - c;";
    body += " o0 += c * STRIDE_" + s + "; }\n";
  }
  if (mode == "reflect")
    for (size_t d = 0; d < rank; ++d)
      if (pads[d] >= x[d] || pads[d + rank] >= x[d]) n.unsupported("reflect pads as wide as the input's dim " + std::to_string(d));
  body += "    y[e] = inside ? x0[o0] : PAD_VALUE;\n";
  const auto inputs = k.inputs;
  k = walk_kernel({{element_count(out)}, {}, {}}, defines, body, limits);
  k.inputs = inputs;
  return {k};
}

}  // namespace

bool is_copy_op(const std::string& op) {
  return op == "Transpose" || op == "Concat" || op == "Split" || op == "Slice" || op == "Gather" || op == "Pad" || op == "Tile";
}

std::vector<OpKernel> copy_kernels(const OpNode& n, const GpuLimits& limits) {
  const std::string& op = n.op();
  if (op == "Transpose") return transpose(n, limits);
  if (op == "Concat") return concat(n, limits);
  if (op == "Split") return split(n, limits);
  if (op == "Slice") return slice(n, limits);
  if (op == "Gather") return gather(n, limits);
  return pad_or_tile(n, limits);
}

}  // namespace aoe::cuda
