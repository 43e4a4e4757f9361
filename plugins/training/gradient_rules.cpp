#include "gradient_rules.h"

#include <algorithm>
#include <map>
#include <set>

namespace aoe::training {
namespace {

using nlohmann::json;
using Grads = std::vector<std::string>;

const std::vector<int64_t>& shape_of(GradientContext& c, const std::string& tensor) { return c.step.tensor(tensor).shape; }
std::string input(GradientContext& c, size_t i) { return i < c.node.inputs.size() ? c.node.inputs[i] : std::string(); }
bool wants(GradientContext& c, size_t i) { return i < c.wants.size() && c.wants[i]; }
DType grad_dtype(GradientContext& c, size_t i) {
  return i < c.weight.size() && c.weight[i] ? DType::f32 : c.step.activation();
}
std::vector<int64_t> ints(const json& attrs, const char* key, std::vector<int64_t> fallback) {
  return attrs.contains(key) ? attrs.at(key).get<std::vector<int64_t>>() : fallback;
}

// A gradient of the output's shape summed back to the shape of an operand
// that was broadcast to it (ONNX's rules: dims aligned at the end).
std::string reduce_to(GradientContext& c, const std::string& grad, size_t i) {
  const std::string operand = input(c, i);
  const DType dtype = grad_dtype(c, i);
  const auto& out = shape_of(c, grad);
  const auto& to = shape_of(c, operand);
  if (out == to) return grad;
  std::vector<int64_t> axes;
  const size_t lead = out.size() - std::min(out.size(), to.size());
  for (size_t a = 0; a < out.size(); ++a)
    if (a < lead || (to[a - lead] == 1 && out[a] != 1)) axes.push_back(static_cast<int64_t>(a));
  // A bias: one value per feature of the last axis, as BiasAdd adds it.
  if (to.size() == 1 && !out.empty() && to[0] == out.back() && i < c.weight.size() && c.weight[i])
    return c.step.add_unary(c.node.name, "BiasAddGrad", {grad}, to, dtype, {{"axis", -1}});
  return c.step.add_unary(c.node.name, "ReduceSum", {grad}, to, dtype,
                          {{"axes", axes}, {"keepdims", out.size() == to.size() ? 1 : 0}});
}

// The same tensor under another shape: a view, which needs no kernel.
std::string view_as(GradientContext& c, const std::string& grad, const std::vector<int64_t>& shape) {
  if (shape_of(c, grad) == shape) return grad;
  return c.step.add_unary(c.node.name, "Reshape", {grad}, shape, c.step.tensor(grad).dtype);
}

json conv_attrs(const json& attrs, const std::vector<int64_t>& w) {
  const size_t spatial = w.size() > 2 ? w.size() - 2 : 0;
  std::vector<int64_t> kernel(w.begin() + static_cast<long>(w.size() - spatial), w.end());
  return {{"kernel_shape", ints(attrs, "kernel_shape", kernel)},
          {"strides", ints(attrs, "strides", std::vector<int64_t>(spatial, 1))},
          {"pads", ints(attrs, "pads", std::vector<int64_t>(2 * spatial, 0))},
          {"dilations", ints(attrs, "dilations", std::vector<int64_t>(spatial, 1))},
          {"group", attrs.value("group", int64_t{1})}};
}

Grads conv(GradientContext& c) {
  Grads g(c.node.inputs.size());
  const std::string& dy = c.dy[0];
  const std::string x = input(c, 0), w = input(c, 1);
  const auto attrs = conv_attrs(c.node.attrs, shape_of(c, w));
  if (wants(c, 0)) {
    auto with_size = attrs;
    const auto& xs = shape_of(c, x);
    with_size["input_size"] = std::vector<int64_t>(xs.begin() + 2, xs.end());
    g[0] = c.step.add_unary(c.node.name, "Conv2DBackpropInput", {dy, w}, xs, c.step.activation(), with_size);
  }
  if (wants(c, 1)) g[1] = c.step.add_unary(c.node.name, "Conv2DBackpropFilter", {x, dy}, shape_of(c, w), DType::f32, attrs);
  if (wants(c, 2))
    g[2] = c.step.add_unary(c.node.name, "BiasAddGrad", {dy}, shape_of(c, input(c, 2)), DType::f32, {{"axis", 1}});
  return g;
}

// ConvTranspose is the adjoint of Conv in its input: dx is the Conv of dy
// by the same weights (Cin x Cout/group is a Conv's Cout x Cin/group from
// dy's channels to x's), and dw the filter gradient of that Conv, x as
// its dy. Stride, pads, dilations and group carry over; output_padding only
// adds rows the Conv's floor leaves unread.
Grads conv_transpose(GradientContext& c) {
  if (c.node.attrs.contains("output_shape") || c.node.attrs.value("auto_pad", std::string("NOTSET")) != "NOTSET")
    throw aoe::sdk::Error(aoe::sdk::StatusCode::invalid_argument,
                          no_gradient_rule("ConvTranspose sized by output_shape or auto_pad", c.node.name));
  Grads g(c.node.inputs.size());
  const std::string& dy = c.dy[0];
  const std::string x = input(c, 0), w = input(c, 1);
  const auto attrs = conv_attrs(c.node.attrs, shape_of(c, w));
  if (wants(c, 0)) g[0] = c.step.add_unary(c.node.name, "Conv", {dy, w}, shape_of(c, x), c.step.activation(), attrs);
  if (wants(c, 1)) g[1] = c.step.add_unary(c.node.name, "Conv2DBackpropFilter", {dy, x}, shape_of(c, w), DType::f32, attrs);
  if (wants(c, 2))
    g[2] = c.step.add_unary(c.node.name, "BiasAddGrad", {dy}, shape_of(c, input(c, 2)), DType::f32, {{"axis", 1}});
  return g;
}

Grads batch_norm(GradientContext& c) {
  Grads g(c.node.inputs.size());
  const std::string& dy = c.dy[0];
  const std::string x = input(c, 0), scale = input(c, 1);
  const auto& channels = shape_of(c, scale);
  const std::string dscale = c.step.add_tensor(c.node.name + "/dscale", channels, DType::f32);
  const std::string doffset = c.step.add_tensor(c.node.name + "/doffset", channels, DType::f32);
  const std::string mean = c.saved.at(0), invstd = c.saved.at(1);
  c.step.add_kernel(c.node.name, "BNTrainingUpdateGrad", {dy, x, mean, invstd}, {dscale, doffset});
  if (wants(c, 0))
    g[0] = c.step.add_unary(c.node.name, "BNTrainingReduceGrad", {dy, x, dscale, doffset, scale, mean, invstd},
                            shape_of(c, x), c.step.activation());
  if (wants(c, 1)) g[1] = dscale;
  if (wants(c, 2)) g[2] = doffset;
  return g;
}

Grads layer_norm(GradientContext& c) {
  Grads g(c.node.inputs.size());
  const std::string& dy = c.dy[0];
  const std::string x = input(c, 0);
  const std::string mean = c.saved.at(0), invstd = c.saved.at(1);
  if (wants(c, 0)) {
    std::vector<std::string> in = {dy, x, mean, invstd};
    if (!input(c, 1).empty()) in.push_back(input(c, 1));
    g[0] = c.step.add_unary(c.node.name, "LayerNormXBackpropV2", in, shape_of(c, x), c.step.activation(), {{"axis", -1}});
  }
  if (wants(c, 1) || wants(c, 2)) {
    const std::vector<int64_t> d = {shape_of(c, x).back()};
    const std::string dgamma = c.step.add_tensor(c.node.name + "/dgamma", d, DType::f32);
    const std::string dbeta = c.step.add_tensor(c.node.name + "/dbeta", d, DType::f32);
    c.step.add_kernel(c.node.name, "LayerNormBetaGammaBackpropV2", {dy, x, mean, invstd}, {dgamma, dbeta}, {{"axis", -1}});
    if (wants(c, 1)) g[1] = dgamma;
    if (wants(c, 2)) g[2] = dbeta;
  }
  return g;
}

std::string batch_matmul(GradientContext& c, const std::string& a, const std::string& b, bool adj_a, bool adj_b,
                         std::vector<int64_t> shape, DType dtype) {
  return c.step.add_unary(c.node.name, "BatchMatMul", {a, b}, std::move(shape), dtype,
                          {{"adj_x1", adj_a ? 1 : 0}, {"adj_x2", adj_b ? 1 : 0}});
}

// Rows of a tensor as a matrix: all dims but the last folded into one.
std::string as_rows(GradientContext& c, const std::string& t) {
  const auto& s = shape_of(c, t);
  if (s.size() <= 2) return t;
  int64_t rows = 1;
  for (size_t i = 0; i + 1 < s.size(); ++i) rows *= s[i];
  return view_as(c, t, {rows, s.back()});
}

// y = op(a) · op(b); the operand that is a weight of rank 2 takes its
// gradient from the rows of the other and of dy.
Grads matmul_grads(GradientContext& c, bool trans_a, bool trans_b) {
  Grads g(c.node.inputs.size());
  const std::string& dy = c.dy[0];
  const std::string a = input(c, 0), b = input(c, 1);
  const auto& as = shape_of(c, a);
  const auto& bs = shape_of(c, b);
  if (wants(c, 0))
    g[0] = trans_a ? batch_matmul(c, b, dy, trans_b, true, as, grad_dtype(c, 0))
                   : batch_matmul(c, dy, b, false, !trans_b, as, grad_dtype(c, 0));
  if (wants(c, 1)) {
    const bool rows = bs.size() == 2 && as.size() > 2;
    const std::string x = rows ? as_rows(c, a) : a, d = rows ? as_rows(c, dy) : dy;
    g[1] = trans_b ? batch_matmul(c, d, x, true, trans_a, bs, grad_dtype(c, 1))
                   : batch_matmul(c, x, d, !trans_a, false, bs, grad_dtype(c, 1));
  }
  return g;
}

Grads matmul(GradientContext& c) { return matmul_grads(c, false, false); }

Grads gemm(GradientContext& c) {
  Grads g = matmul_grads(c, c.node.attrs.value("transA", int64_t{0}) != 0, c.node.attrs.value("transB", int64_t{0}) != 0);
  if (wants(c, 2)) g[2] = reduce_to(c, c.dy[0], 2);
  return g;
}

Grads add_or_sub(GradientContext& c, bool sub) {
  Grads g(c.node.inputs.size());
  for (size_t i = 0; i < 2; ++i) {
    if (!wants(c, i)) continue;
    std::string d = c.dy[0];
    if (sub && i == 1) d = c.step.add_unary(c.node.name, "Neg", {d}, shape_of(c, d), c.step.tensor(d).dtype);
    g[i] = reduce_to(c, d, i);
  }
  return g;
}
Grads add(GradientContext& c) { return add_or_sub(c, false); }
Grads sub(GradientContext& c) { return add_or_sub(c, true); }

Grads mul(GradientContext& c) {
  Grads g(c.node.inputs.size());
  for (size_t i = 0; i < 2; ++i) {
    if (!wants(c, i)) continue;
    const std::string d = c.step.add_unary(c.node.name, "Mul", {c.dy[0], input(c, 1 - i)}, shape_of(c, c.dy[0]),
                                           c.step.activation());
    g[i] = reduce_to(c, d, i);
  }
  return g;
}

Grads div(GradientContext& c) {
  Grads g(c.node.inputs.size());
  if (wants(c, 1) || !c.step.tensor(input(c, 1)).constant)
    throw aoe::sdk::Error(aoe::sdk::StatusCode::invalid_argument,
                          no_gradient_rule("Div by a computed value", c.node.name));
  if (wants(c, 0)) {
    const std::string d = c.step.add_unary(c.node.name, "Div", {c.dy[0], input(c, 1)}, shape_of(c, c.dy[0]),
                                           c.step.activation());
    g[0] = reduce_to(c, d, 0);
  }
  return g;
}

Grads unary(GradientContext& c, const char* kernel, const std::string& second, json attrs = json::object()) {
  Grads g(c.node.inputs.size());
  if (wants(c, 0)) {
    std::vector<std::string> in = {c.dy[0]};
    if (!second.empty()) in.push_back(second);
    g[0] = c.step.add_unary(c.node.name, kernel, in, shape_of(c, input(c, 0)), c.step.activation(), std::move(attrs));
  }
  return g;
}

Grads relu(GradientContext& c) { return unary(c, "ReluGradV2", c.node.outputs[0]); }
Grads gelu(GradientContext& c) { return unary(c, "GeLUGrad", input(c, 0)); }
Grads sigmoid(GradientContext& c) { return unary(c, "SigmoidGrad", c.node.outputs[0]); }
Grads hard_swish(GradientContext& c) { return unary(c, "HardSwishGrad", input(c, 0)); }
Grads hard_sigmoid(GradientContext& c) {
  return unary(c, "HardSigmoidGrad", input(c, 0),
               {{"alpha", c.node.attrs.value("alpha", 0.2)}, {"beta", c.node.attrs.value("beta", 0.5)}});
}

// Clip as exporters write ReLU6 (bounds 0 and 6, known when the model is
// read); other bounds have no kernel of their own in CANN's step.
Grads clip(GradientContext& c) {
  const bool relu6 = c.node.attrs.value("min", -1.0) == 0.0 && c.node.attrs.value("max", -1.0) == 6.0;
  if (!relu6 || wants(c, 1) || wants(c, 2))
    throw aoe::sdk::Error(aoe::sdk::StatusCode::invalid_argument,
                          no_gradient_rule("Clip with bounds other than the constants 0 and 6", c.node.name));
  return unary(c, "Relu6Grad", input(c, 0));
}
Grads neg(GradientContext& c) { return unary(c, "Neg", ""); }
Grads softmax(GradientContext& c) {
  return unary(c, "SoftmaxGradExt", c.node.outputs[0], {{"axis", c.node.attrs.value("axis", int64_t{-1})}});
}

Grads transpose(GradientContext& c) {
  const auto perm = c.node.attrs.at("perm").get<std::vector<int64_t>>();
  std::vector<int64_t> inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inverse[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
  return unary(c, "Transpose", "", {{"perm", inverse}});
}

Grads cast(GradientContext& c) {
  Grads g(c.node.inputs.size());
  if (wants(c, 0)) {
    const DType to = c.step.tensor(input(c, 0)).dtype;
    g[0] = c.step.add_unary(c.node.name, "Cast", {c.dy[0]}, shape_of(c, input(c, 0)), to, {{"to", aoe::sdk::to_string(to)}});
  }
  return g;
}

Grads max_pool(GradientContext& c) {
  Grads g(c.node.inputs.size());
  if (!wants(c, 0)) return g;
  const auto& xs = shape_of(c, input(c, 0));
  const size_t spatial = xs.size() - 2;
  const json attrs = {{"kernel_shape", c.node.attrs.at("kernel_shape")},
                      {"strides", ints(c.node.attrs, "strides", std::vector<int64_t>(spatial, 1))},
                      {"pads", ints(c.node.attrs, "pads", std::vector<int64_t>(2 * spatial, 0))}};
  g[0] = c.step.add_unary(c.node.name, "MaxPoolGradWithArgmax", {input(c, 0), c.dy[0]}, xs, c.step.activation(), attrs);
  return g;
}

Grads global_average_pool(GradientContext& c) {
  const auto& xs = shape_of(c, input(c, 0));
  return unary(c, "GlobalAveragePoolGrad", "", {{"input_size", std::vector<int64_t>(xs.begin() + 2, xs.end())}});
}

// ReduceMean over H and W of a map is GlobalAveragePool: its gradient is
// GlobalAveragePoolGrad of dy seen as N x C x 1 x 1. Other axes would need
// CANN's Tile and RealDiv, which the step does not derive.
Grads reduce_mean(GradientContext& c) {
  const auto& xs = shape_of(c, input(c, 0));
  auto axes = ints(c.node.attrs, "axes", {});
  for (auto& a : axes) a = a < 0 ? a + static_cast<int64_t>(xs.size()) : a;
  std::sort(axes.begin(), axes.end());
  if (xs.size() != 4 || axes != std::vector<int64_t>{2, 3})
    throw aoe::sdk::Error(aoe::sdk::StatusCode::invalid_argument,
                          no_gradient_rule("ReduceMean over axes other than H and W of a map", c.node.name));
  Grads g(c.node.inputs.size());
  if (!wants(c, 0)) return g;
  const std::string dy = view_as(c, c.dy[0], {xs[0], xs[1], 1, 1});
  g[0] = c.step.add_unary(c.node.name, "GlobalAveragePoolGrad", {dy}, xs, c.step.activation(),
                          {{"input_size", std::vector<int64_t>{xs[2], xs[3]}}});
  return g;
}

// Resize of a map's H and W, nearest (rounding half down) or linear, by
// half-pixel coordinates (ONNX's defaults): its gradient adds each position
// of dy into the positions of x it was read from, CANN's
// ResizeNearestNeighborV2Grad and ResizeBilinearV2Grad.
Grads resize(GradientContext& c) {
  const auto& a = c.node.attrs;
  const std::string mode = a.value("mode", std::string("nearest"));
  const auto& xs = shape_of(c, input(c, 0));
  const auto& ys = shape_of(c, c.node.outputs[0]);
  const bool supported = xs.size() == 4 && ys.size() == 4 && xs[0] == ys[0] && xs[1] == ys[1] &&
                         (mode == "nearest" || mode == "linear") &&
                         a.value("coordinate_transformation_mode", std::string("half_pixel")) == "half_pixel" &&
                         (mode != "nearest" || a.value("nearest_mode", std::string("round_prefer_floor")) == "round_prefer_floor");
  if (!supported)
    throw aoe::sdk::Error(aoe::sdk::StatusCode::invalid_argument,
                          no_gradient_rule("Resize other than nearest or linear over H and W by half-pixel coordinates",
                                           c.node.name));
  return unary(c, mode == "nearest" ? "ResizeNearestNeighborV2Grad" : "ResizeBilinearV2Grad", "",
               {{"input_size", std::vector<int64_t>{xs[2], xs[3]}}});
}

int64_t axis_of(GradientContext& c, const std::string& tensor) {
  const int64_t axis = c.node.attrs.value("axis", int64_t{0});
  return axis < 0 ? axis + static_cast<int64_t>(shape_of(c, tensor).size()) : axis;
}

// Concat's gradient splits dy back into its inputs' sizes along the axis.
Grads concat(GradientContext& c) {
  Grads g(c.node.inputs.size());
  const int64_t axis = axis_of(c, c.dy[0]);
  std::vector<int64_t> sizes;
  std::vector<std::string> outs;
  for (size_t i = 0; i < c.node.inputs.size(); ++i) {
    const auto& s = shape_of(c, input(c, i));
    sizes.push_back(s[static_cast<size_t>(axis)]);
    outs.push_back(c.step.add_tensor(c.node.name + "/Split:" + std::to_string(i), s, c.step.activation()));
    if (wants(c, i)) g[i] = outs.back();
  }
  c.step.add_kernel(c.node.name, "Split", {c.dy[0]}, outs, {{"axis", axis}, {"split", sizes}});
  return g;
}

// Split's gradient concatenates its outputs' gradients; each output needs one.
Grads split(GradientContext& c) {
  Grads g(c.node.inputs.size());
  if (!wants(c, 0)) return g;
  if (std::any_of(c.dy.begin(), c.dy.end(), [](const std::string& d) { return d.empty(); }))
    throw aoe::sdk::Error(aoe::sdk::StatusCode::invalid_argument,
                          no_gradient_rule("Split with an output no gradient reaches", c.node.name));
  g[0] = c.step.add_unary(c.node.name, "Concat", c.dy, shape_of(c, input(c, 0)), c.step.activation(),
                          {{"axis", axis_of(c, input(c, 0))}});
  return g;
}

Grads view(GradientContext& c) {
  Grads g(c.node.inputs.size());
  if (wants(c, 0)) g[0] = view_as(c, c.dy[0], shape_of(c, input(c, 0)));
  return g;
}

const std::map<std::string, GradientRule>& rules() {
  static const std::map<std::string, GradientRule> table = {
      {"Conv", conv},
      {"ConvTranspose", conv_transpose},
      {"BatchNormalization", batch_norm},
      {"LayerNormalization", layer_norm},
      {"MatMul", matmul},
      {"Gemm", gemm},
      {"Add", add},
      {"Sub", sub},
      {"Mul", mul},
      {"Div", div},
      {"Neg", neg},
      {"Relu", relu},
      {"Gelu", gelu},
      {"Softmax", softmax},
      {"Transpose", transpose},
      {"Concat", concat},
      {"Split", split},
      {"Cast", cast},
      {"MaxPool", max_pool},
      {"GlobalAveragePool", global_average_pool},
      {"ReduceMean", reduce_mean},
      {"Resize", resize},
      {"Sigmoid", sigmoid},
      {"HardSwish", hard_swish},
      {"HardSigmoid", hard_sigmoid},
      {"Clip", clip},
      {"Reshape", view},
      {"Flatten", view},
      {"Squeeze", view},
      {"Unsqueeze", view},
      {"Identity", view},
      {"Dropout", view},
  };
  return table;
}

}  // namespace

std::string no_gradient_rule(const std::string& op_type, const std::string& node) {
  std::string list;
  for (const auto& type : gradient_op_types()) list += (list.empty() ? "" : ", ") + type;
  return "--training: no gradient rule for " + op_type + " (node '" + node + "'); the training step supports " + list;
}

GradientRule find_gradient_rule(const std::string& op_type) {
  const auto it = rules().find(op_type);
  return it == rules().end() ? nullptr : it->second;
}

bool is_view(const std::string& op_type) {
  static const std::set<std::string> views = {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity", "Dropout"};
  return views.count(op_type) > 0;
}

std::vector<std::string> gradient_op_types() {
  std::vector<std::string> out;
  for (const auto& [type, rule] : rules()) out.push_back(type);
  return out;
}

}  // namespace aoe::training
