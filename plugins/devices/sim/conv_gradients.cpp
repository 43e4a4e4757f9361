#include "conv_gradients.h"

#include <algorithm>

#include "aoe/sdk/error.h"
#include "conv_transpose.h"
#include "vector_model.h"

namespace aoe::sim {
namespace {

using sdk::Error;
using sdk::OpTask;
using sdk::TensorDesc;



const TensorDesc& map_input(const OpTask& task, size_t i, const char* name) {
  if (task.inputs.size() <= i) malformed(task, std::string("has no input ") + std::to_string(i) + " (" + name + ")");
  const auto& t = task.inputs[i];
  if (t.shape.size() != 4 || !t.fully_known())
    malformed(task, std::string(name) + " must be a known 4-D N x C x H x W map, is " + shape_text(t.shape));
  for (auto d : t.shape)
    if (d < 1) malformed(task, std::string(name) + " is empty");
  return t;
}

// The forward Conv's geometry, as both gradients carry it.
struct ConvAttrs {
  std::vector<int64_t> kernel, strides, pads, dilations;
  int64_t group = 1;
};

ConvAttrs conv_attrs(const OpTask& task, std::vector<int64_t> kernel_fallback) {
  ConvAttrs a;
  a.kernel = attr_ints(task.attrs, "kernel_shape", std::move(kernel_fallback));
  a.strides = attr_ints(task.attrs, "strides", {1, 1});
  a.pads = attr_ints(task.attrs, "pads", {0, 0, 0, 0});
  a.dilations = attr_ints(task.attrs, "dilations", {1, 1});
  a.group = attr_int(task.attrs, "group", 1);
  if (a.kernel.size() != 2 || a.strides.size() != 2 || a.dilations.size() != 2 || a.pads.size() != 4)
    malformed(task, "the forward Conv's kernel_shape, strides and dilations take 2 values, its pads 4");
  for (size_t i = 0; i < 2; ++i)
    if (a.kernel[i] < 1 || a.strides[i] < 1 || a.dilations[i] < 1)
      malformed(task, "kernel_shape, strides and dilations must be >= 1");
  for (auto p : a.pads)
    if (p < 0) malformed(task, "pads must be >= 0");
  if (a.group < 1) malformed(task, "group must be >= 1");
  return a;
}

// The forward Conv's output size along one axis.
int64_t conv_out(int64_t in, const ConvAttrs& a, size_t axis) {
  const int64_t span = a.dilations[axis] * (a.kernel[axis] - 1) + 1;
  return (in + a.pads[axis] + a.pads[axis + 2] - span) / a.strides[axis] + 1;
}

}  // namespace

OpTask conv_backprop_input_as_conv_transpose(const OpTask& task, const Soc& soc) {
  const auto& dy = map_input(task, 0, "dy");
  if (task.inputs.size() < 2) malformed(task, "has no input 1 (w)");
  const auto& w = task.inputs[1];
  if (w.shape.size() != 4 || !w.fully_known())
    malformed(task, "w must be the forward Conv's Cout x Cin/group x KH x KW weights, is " + shape_text(w.shape));
  const auto a = conv_attrs(task, {w.shape[2], w.shape[3]});
  if (w.shape[0] != dy.shape[1])
    malformed(task, "dy has " + std::to_string(dy.shape[1]) + " channels, w " + std::to_string(w.shape[0]) + " output channels");
  if (a.kernel[0] != w.shape[2] || a.kernel[1] != w.shape[3]) malformed(task, "kernel_shape disagrees with w");
  const auto size = attr_ints(task.attrs, "input_size", {});
  if (size.size() != 2) malformed(task, "input_size must give the forward input's H and W");
  const int64_t cin = w.shape[1] * a.group;
  if (dy.shape[1] % a.group != 0) malformed(task, "group " + std::to_string(a.group) + " does not divide dy's channels");
  for (size_t axis = 0; axis < 2; ++axis)
    if (size[axis] < 1 || conv_out(size[axis], a, axis) != dy.shape[2 + axis])
      malformed(task, "dy is " + shape_text(dy.shape) + ", the forward Conv of an input of " + std::to_string(size[0]) + " x " +
                    std::to_string(size[1]) + " gives another size");
  if (!task.outputs.empty()) {
    const std::vector<int64_t> want{dy.shape[0], cin, size[0], size[1]};
    if (task.outputs[0].shape != want) malformed(task, "dx is " + shape_text(task.outputs[0].shape) + ", not " + shape_text(want));
  }
  OpTask t = task;
  t.op_type = "ConvTranspose";
  t.attrs = {{"kernel_shape", a.kernel}, {"strides", a.strides}, {"pads", a.pads},
             {"dilations", a.dilations}, {"group", a.group}, {"output_shape", size}};
  for (const char* key : {"on_chip_inputs", "on_chip_outputs"})
    if (task.attrs.contains(key)) t.attrs[key] = task.attrs[key];
  try {
    return conv_transpose_as_conv(t, soc);
  } catch (const Error& e) {
    throw Error(e.code(), task.op_type + " '" + task.name + "' as a transposed conv: " + e.what());
  }
}

OpTask conv_backprop_filter_as_matmul(const OpTask& task, const Soc&, int64_t images) {
  const auto& x = map_input(task, 0, "x");
  const auto& dy = map_input(task, 1, "dy");
  const TensorDesc* dw = task.outputs.empty() ? nullptr : &task.outputs[0];
  if (dw && dw->shape.size() != 4)
    malformed(task, "dw must be Cout x Cin/group x KH x KW, is " + shape_text(dw->shape));
  const auto a = conv_attrs(task, dw ? std::vector<int64_t>{dw->shape[2], dw->shape[3]} : std::vector<int64_t>{});
  if (x.shape[0] != dy.shape[0])
    malformed(task, "x holds " + std::to_string(x.shape[0]) + " images, dy " + std::to_string(dy.shape[0]));
  const int64_t g = a.group, cin = x.shape[1], cout = dy.shape[1];
  if (cin % g != 0 || cout % g != 0)
    malformed(task, "group " + std::to_string(g) + " does not divide x's " + std::to_string(cin) + " and dy's " +
                  std::to_string(cout) + " channels");
  for (size_t axis = 0; axis < 2; ++axis)
    if (conv_out(x.shape[2 + axis], a, axis) != dy.shape[2 + axis])
      malformed(task, "dy is " + shape_text(dy.shape) + ", not the forward Conv's output for x of " + shape_text(x.shape));
  const std::vector<int64_t> want{cout, cin / g, a.kernel[0], a.kernel[1]};
  if (dw && dw->shape != want) malformed(task, "dw is " + shape_text(dw->shape) + ", not " + shape_text(want));
  if (!task.fused_ops.empty()) malformed(task, "takes no fused ops");

  const int64_t depth = (images > 0 ? std::min(images, dy.shape[0]) : dy.shape[0]) * dy.shape[2] * dy.shape[3];
  const int64_t columns = cin / g * a.kernel[0] * a.kernel[1];
  OpTask t;
  t.name = task.name;
  t.op_type = "MatMul";
  TensorDesc lhs = dy, rhs = x, out;
  lhs.name = "dy";
  rhs.name = "x";
  out.name = "dw";
  out.dtype = dw ? dw->dtype : sdk::DType::f32;
  lhs.format = rhs.format = "ND";
  if (g == 1) {
    lhs.shape = {cout, depth};
    rhs.shape = {depth, columns};
    out.shape = {cout, columns};
  } else {
    lhs.shape = {g, cout / g, depth};
    rhs.shape = {g, depth, columns};
    out.shape = {g, cout / g, columns};
  }
  t.inputs = {lhs, rhs};
  t.outputs = {out};
  // dy is the product's A: where the strategy keeps it in L2, so it stays.
  if (task.attrs.contains("on_chip_inputs")) {
    nlohmann::json kept = nlohmann::json::array();
    for (const auto& i : task.attrs["on_chip_inputs"])
      if (i.is_number_integer() && i.get<int64_t>() < 2) kept.push_back(1 - i.get<int64_t>());
    t.attrs["on_chip_inputs"] = kept;
  }
  if (task.attrs.contains("on_chip_outputs")) t.attrs["on_chip_outputs"] = task.attrs["on_chip_outputs"];
  return t;
}

}  // namespace aoe::sim
