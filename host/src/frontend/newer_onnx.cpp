#include "newer_onnx.h"

#include <onnx/defs/schema.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "aoe/sdk/error.h"
#include "constant_folding.h"
#include "model_file.h"

namespace aoe::host {
namespace {

namespace fs = std::filesystem;
using sdk::Error;
using sdk::StatusCode;
using onnx::AttributeProto;
using onnx::NodeProto;
using onnx::TensorProto;

constexpr int64_t kCheckerIrVersion = 8;  // ONNX 1.12's
constexpr int64_t kNewestReadIr = 11;     // ONNX 1.18's: the IR versions since add element types only
constexpr int64_t kReadOpset = 17;
constexpr int kNewestElementType = TensorProto::BFLOAT16;  // float8, int4 and float4 came after

// The constants a graph holds (initializers, Constant nodes), and its enclosing graphs'.
class Scope {
 public:
  Scope(const onnx::GraphProto& graph, const Scope* outer) : graph_(graph), outer_(outer) {
    for (const auto& init : graph.initializer()) tensors_[init.name()] = &init;
    for (const auto& node : graph.node()) {
      if (node.op_type() != "Constant" || !default_domain(node) || node.output_size() != 1) continue;
      if (const auto* value = find_attr(node, "value"); value && value->has_t()) tensors_[node.output(0)] = &value->t();
      if (const auto* ints = find_attr(node, "value_ints")) ints_[node.output(0)] = {ints->ints().begin(), ints->ints().end()};
      if (const auto* one = find_attr(node, "value_int")) ints_[node.output(0)] = {one->i()};
    }
  }

  // The integers a constant holds, else nullopt (computed as the model runs).
  std::optional<std::vector<int64_t>> ints(const std::string& name) const {
    if (const auto it = ints_.find(name); it != ints_.end()) return it->second;
    if (const auto it = tensors_.find(name); it != tensors_.end()) {
      const auto known = read_known(*it->second);
      if (!known || known->is_real()) return std::nullopt;
      return known->ints;
    }
    return outer_ ? outer_->ints(name) : std::nullopt;
  }

  // The element type the graph declares for a value, FLOAT where it says none.
  int32_t elem_type(const std::string& name) const {
    if (const auto it = tensors_.find(name); it != tensors_.end()) return it->second->data_type();
    for (const auto* list : {&graph_.input(), &graph_.value_info(), &graph_.output()})
      for (const auto& v : *list)
        if (v.name() == name && v.type().has_tensor_type()) return v.type().tensor_type().elem_type();
    return outer_ ? outer_->elem_type(name) : TensorProto::FLOAT;
  }

 private:
  const onnx::GraphProto& graph_;
  const Scope* outer_;
  std::map<std::string, const TensorProto*> tensors_;
  std::map<std::string, std::vector<int64_t>> ints_;
};

std::string string_attr(const NodeProto& node, const std::string& name, const std::string& fallback) {
  const auto* a = find_attr(node, name);
  return a ? a->s() : fallback;
}

AttributeProto* set_attr(NodeProto& node, const std::string& name, AttributeProto::AttributeType type) {
  drop_attr(node, name);
  auto* a = node.add_attribute();
  a->set_name(name);
  a->set_type(type);
  return a;
}

void keep_inputs(NodeProto& node, int count) {
  while (node.input_size() > count) node.mutable_input()->RemoveLast();
}

bool has_input(const NodeProto& node, int i) { return node.input_size() > i && !node.input(i).empty(); }

// Rewrites one node of a newer opset into the nodes of opset 17 that compute the same.
class Rewriter {
 public:
  Rewriter(const fs::path& path, int64_t opset) : path_(path), opset_(opset) {}

  [[noreturn]] void refuse(const NodeProto& node, const std::string& why) const {
    throw Error(StatusCode::unsupported,
                "ONNX model " + quoted(path_) + ": node '" + node_label(node) + "' (" + node.op_type() + ", opset " +
                    std::to_string(opset_) + ") " + why +
                    "; aoe reads opsets 18.." + std::to_string(kNewestReadOpset) +
                    " through their opset-17 forms: re-export the model without it, or at opset 17");
  }

  // A name no other value has: the node's first output, then what it is.
  std::string fresh(const NodeProto& node, const std::string& what) {
    return (node.output_size() ? node.output(0) : node.name()) + "/opset17_" + std::to_string(next_++) + "_" + what;
  }

  NodeProto& add(std::vector<NodeProto>& out, const NodeProto& from, const std::string& op,
                 std::vector<std::string> inputs, std::vector<std::string> outputs) {
    NodeProto n;
    n.set_name(fresh(from, op));
    n.set_op_type(op);
    for (auto& i : inputs) n.add_input(std::move(i));
    for (auto& o : outputs) n.add_output(std::move(o));
    out.push_back(std::move(n));
    return out.back();
  }

  // A Constant of int64 values; its output's name.
  std::string ints(std::vector<NodeProto>& out, const NodeProto& from, const std::vector<int64_t>& values, bool scalar = false) {
    const std::string name = fresh(from, "ints");
    auto* t = set_attr(add(out, from, "Constant", {}, {name}), "value", AttributeProto::TENSOR)->mutable_t();
    t->set_data_type(TensorProto::INT64);
    if (!scalar) t->add_dims(static_cast<int64_t>(values.size()));
    for (auto v : values) t->add_int64_data(v);
    return name;
  }

  // A float scalar Constant, cast to `type` where that is not float32 (folded as the graph is normalised).
  std::string real(std::vector<NodeProto>& out, const NodeProto& from, double value, int32_t type) {
    std::string name = fresh(from, "real");
    auto* t = set_attr(add(out, from, "Constant", {}, {name}), "value", AttributeProto::TENSOR)->mutable_t();
    t->set_data_type(TensorProto::FLOAT);
    t->add_float_data(static_cast<float>(value));
    if (type == TensorProto::FLOAT) return name;
    const std::string cast = fresh(from, "cast");
    set_attr(add(out, from, "Cast", {name}, {cast}), "to", AttributeProto::INT)->set_i(type);
    return cast;
  }

 private:
  const fs::path& path_;
  int64_t opset_;
  int64_t next_ = 0;
};

using Adapter = void (*)(Rewriter&, const Scope&, NodeProto, std::vector<NodeProto>&);

// Reduce*-18 (ReduceMax/Min-20): axes an input, and noop_with_empty_axes. Opset 13's
// take axes as an attribute and reduce every axis without one.
void reduce_axes(Rewriter& rw, const Scope& scope, NodeProto node, std::vector<NodeProto>& out) {
  std::optional<std::vector<int64_t>> axes;
  if (has_input(node, 1) && !(axes = scope.ints(node.input(1))))
    rw.refuse(node, "takes its axes from '" + node.input(1) + "', computed as the model runs");
  const bool noop = int_attr(node, "noop_with_empty_axes", 0) != 0;
  drop_attr(node, "noop_with_empty_axes");
  keep_inputs(node, 1);
  if (axes && !axes->empty()) {
    set_attr(node, "axes", AttributeProto::INTS)->mutable_ints()->Add(axes->begin(), axes->end());
  } else if (noop) {  // no axes and noop: the input as it is
    node.set_op_type("Identity");
    node.clear_attribute();
  }
  out.push_back(std::move(node));
}

// Split-18's num_outputs: chunks of ceil(d / n), the last what is left. The sizes are
// computed from the input's shape, so the normaliser folds them to a constant.
void split_outputs(Rewriter& rw, const Scope&, NodeProto node, std::vector<NodeProto>& out) {
  const auto* num = find_attr(node, "num_outputs");
  if (!num) return out.push_back(std::move(node));
  const int64_t n = num->i();
  if (has_input(node, 1)) rw.refuse(node, "gives both split sizes and num_outputs");
  if (n != node.output_size() || n < 1)
    rw.refuse(node, "has num_outputs " + std::to_string(n) + " but " + std::to_string(node.output_size()) + " outputs");
  drop_attr(node, "num_outputs");
  const int64_t axis = int_attr(node, "axis", 0);
  const std::string shape = rw.fresh(node, "shape"), dim = rw.fresh(node, "dim"), up = rw.fresh(node, "up"),
                    chunk = rw.fresh(node, "chunk"), head = rw.fresh(node, "head"), last = rw.fresh(node, "last"),
                    sizes = rw.fresh(node, "sizes");
  rw.add(out, node, "Shape", {node.input(0)}, {shape});
  rw.add(out, node, "Gather", {shape, rw.ints(out, node, {axis})}, {dim});
  rw.add(out, node, "Add", {dim, rw.ints(out, node, {n - 1})}, {up});
  rw.add(out, node, "Div", {up, rw.ints(out, node, {n})}, {chunk});
  rw.add(out, node, "Mul", {chunk, rw.ints(out, node, {n - 1})}, {head});
  rw.add(out, node, "Sub", {dim, head}, {last});
  std::vector<std::string> parts(static_cast<size_t>(n - 1), chunk);
  parts.push_back(last);
  set_attr(rw.add(out, node, "Concat", parts, {sizes}), "axis", AttributeProto::INT)->set_i(0);
  keep_inputs(node, 1);
  node.add_input(sizes);
  out.push_back(std::move(node));
}

// Resize-18/19: antialias, axes and keep_aspect_ratio_policy added; 19's coordinate mode
// half_pixel_symmetric passes as it is (the devices read it by name; ONNX 1.12 checks no mode).
void resize(Rewriter& rw, const Scope&, NodeProto node, std::vector<NodeProto>& out) {
  if (int_attr(node, "antialias", 0) != 0) rw.refuse(node, "resizes with antialias, which opset 17's Resize has not");
  if (const auto* axes = find_attr(node, "axes")) {
    for (int i = 0; i < axes->ints_size(); ++i)
      if (axes->ints(i) != i) rw.refuse(node, "resizes only the axes it lists, which opset 17's Resize cannot");
  }
  if (string_attr(node, "keep_aspect_ratio_policy", "stretch") != "stretch" && has_input(node, 3))
    rw.refuse(node, "keeps the aspect ratio of its sizes, which opset 17's Resize does not");
  for (const char* a : {"antialias", "axes", "keep_aspect_ratio_policy"}) drop_attr(node, a);
  out.push_back(std::move(node));
}

// Pad-18: an axes input; Pad-19: wrap mode. Pads of the axes listed become
// opset 17's pads of every axis as shape arithmetic on the input's rank, folded
// once inference knows it: axis j's begin (end) is the sum of the pads whose
// axis, taken modulo the rank, is j.
void pad(Rewriter& rw, const Scope&, NodeProto node, std::vector<NodeProto>& out) {
  if (string_attr(node, "mode", "constant") == "wrap") rw.refuse(node, "pads in wrap mode, which opset 17's Pad has not");
  if (has_input(node, 3)) {
    const std::string shape = rw.fresh(node, "shape"), rank = rw.fresh(node, "rank"), shifted = rw.fresh(node, "shifted"),
                      axes = rw.fresh(node, "axes"), every = rw.fresh(node, "every"), column = rw.fresh(node, "column"),
                      row = rw.fresh(node, "row"), same = rw.fresh(node, "same"), mask = rw.fresh(node, "mask"),
                      halves = rw.fresh(node, "halves"), picked = rw.fresh(node, "picked"),
                      summed = rw.fresh(node, "summed"), pads = rw.fresh(node, "pads");
    rw.add(out, node, "Shape", {node.input(0)}, {shape});
    rw.add(out, node, "Size", {shape}, {rank});
    rw.add(out, node, "Add", {node.input(3), rank}, {shifted});
    rw.add(out, node, "Mod", {shifted, rank}, {axes});
    rw.add(out, node, "Range", {rw.ints(out, node, {0}, true), rank, rw.ints(out, node, {1}, true)}, {every});
    rw.add(out, node, "Unsqueeze", {every, rw.ints(out, node, {1})}, {column});  // [rank, 1]
    rw.add(out, node, "Unsqueeze", {axes, rw.ints(out, node, {0})}, {row});      // [1, k]
    rw.add(out, node, "Equal", {column, row}, {same});
    set_attr(rw.add(out, node, "Cast", {same}, {mask}), "to", AttributeProto::INT)->set_i(TensorProto::INT64);
    rw.add(out, node, "Reshape", {node.input(1), rw.ints(out, node, {2, 1, -1})}, {halves});  // [2, 1, k]
    rw.add(out, node, "Mul", {halves, mask}, {picked});                                        // [2, rank, k]
    set_attr(rw.add(out, node, "ReduceSum", {picked, rw.ints(out, node, {2})}, {summed}), "keepdims", AttributeProto::INT)
        ->set_i(0);
    rw.add(out, node, "Reshape", {summed, rw.ints(out, node, {-1})}, {pads});  // begins, then ends
    *node.mutable_input(1) = pads;
  }
  keep_inputs(node, std::min(node.input_size(), 3));
  out.push_back(std::move(node));
}

// ScatterElements-18, ScatterND-18: reductions max and min added.
void scatter(Rewriter& rw, const Scope&, NodeProto node, std::vector<NodeProto>& out) {
  const std::string r = string_attr(node, "reduction", "none");
  if (r == "max" || r == "min") rw.refuse(node, "reduces with " + r + ", which opset 17's has not");
  out.push_back(std::move(node));
}

// LpPool-18: ceil_mode.
void lp_pool(Rewriter& rw, const Scope&, NodeProto node, std::vector<NodeProto>& out) {
  if (int_attr(node, "ceil_mode", 0) != 0) rw.refuse(node, "rounds its output size up, which opset 17's LpPool cannot");
  drop_attr(node, "ceil_mode");
  out.push_back(std::move(node));
}

// AveragePool-19: dilations.
void average_pool(Rewriter& rw, const Scope&, NodeProto node, std::vector<NodeProto>& out) {
  if (const auto* d = find_attr(node, "dilations"))
    for (auto v : d->ints())
      if (v != 1) rw.refuse(node, "is dilated, which opset 17's AveragePool cannot be");
  drop_attr(node, "dilations");
  out.push_back(std::move(node));
}

// Cast-19 and CastLike-19: saturate, which applies to float8 alone.
void cast(Rewriter&, const Scope&, NodeProto node, std::vector<NodeProto>& out) {
  drop_attr(node, "saturate");
  out.push_back(std::move(node));
}

// QuantizeLinear and DequantizeLinear 19 and 21: saturate (float8), block_size, output_dtype.
void quantize(Rewriter& rw, const Scope&, NodeProto node, std::vector<NodeProto>& out) {
  if (int_attr(node, "block_size", 0) != 0) rw.refuse(node, "quantizes by blocks, which opset 17's cannot");
  if (int_attr(node, "output_dtype", 0) != 0) rw.refuse(node, "names its output type, which opset 17's cannot");
  for (const char* a : {"saturate", "block_size", "output_dtype"}) drop_attr(node, a);
  out.push_back(std::move(node));
}

// Mish-18: x * tanh(softplus(x)).
void mish(Rewriter& rw, const Scope&, NodeProto node, std::vector<NodeProto>& out) {
  const std::string soft = rw.fresh(node, "softplus"), tanh = rw.fresh(node, "tanh");
  rw.add(out, node, "Softplus", {node.input(0)}, {soft});
  rw.add(out, node, "Tanh", {soft}, {tanh});
  rw.add(out, node, "Mul", {node.input(0), tanh}, {node.output(0)});
}

// Gelu-20: x * (1 + erf(x / sqrt 2)) * 0.5 as BERT's exports write it (so the graph
// passes find it), or with approximate = tanh 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
void gelu(Rewriter& rw, const Scope& scope, NodeProto node, std::vector<NodeProto>& out) {
  const std::string x = node.input(0), y = node.output(0);
  const int32_t type = scope.elem_type(x);
  const std::string approximate = string_attr(node, "approximate", "none");
  const std::string inner = rw.fresh(node, "inner"), curve = rw.fresh(node, "curve"), plus = rw.fresh(node, "plus"),
                    times = rw.fresh(node, "times");
  if (approximate == "none") {
    rw.add(out, node, "Div", {x, rw.real(out, node, std::sqrt(2.0), type)}, {inner});
    rw.add(out, node, "Erf", {inner}, {curve});
  } else if (approximate == "tanh") {
    const std::string cube = rw.fresh(node, "cube"), cubed = rw.fresh(node, "cubed"), sum = rw.fresh(node, "sum");
    rw.add(out, node, "Pow", {x, rw.real(out, node, 3.0, type)}, {cube});
    rw.add(out, node, "Mul", {cube, rw.real(out, node, 0.044715, type)}, {cubed});
    rw.add(out, node, "Add", {x, cubed}, {sum});
    rw.add(out, node, "Mul", {sum, rw.real(out, node, std::sqrt(2.0 / M_PI), type)}, {inner});
    rw.add(out, node, "Tanh", {inner}, {curve});
  } else {
    rw.refuse(node, "approximates with '" + approximate + "', which is neither none nor tanh");
  }
  rw.add(out, node, "Add", {curve, rw.real(out, node, 1.0, type)}, {plus});
  rw.add(out, node, "Mul", {x, plus}, {times});
  rw.add(out, node, "Mul", {times, rw.real(out, node, 0.5, type)}, {y});
}

// GroupNormalization: x as [N, G, rest] is what InstanceNormalization normalises per
// (n, g). At 18 scale and bias are per group, InstanceNormalization's own; at 21 per
// channel, applied after it on x as [N, C, rest].
void group_norm(Rewriter& rw, const Scope& scope, const NodeProto& node, std::vector<NodeProto>& out, bool per_channel) {
  if (node.input_size() != 3) rw.refuse(node, "does not have its three inputs");
  const auto* groups = find_attr(node, "num_groups");
  if (!groups || groups->i() < 1) rw.refuse(node, "has no num_groups of at least 1");
  const int64_t g = groups->i();
  const std::string x = node.input(0), y = node.output(0);
  const std::string shape = rw.fresh(node, "shape"), grouped = rw.fresh(node, "grouped"), normal = rw.fresh(node, "normal");
  const auto* eps = find_attr(node, "epsilon");
  rw.add(out, node, "Shape", {x}, {shape});
  rw.add(out, node, "Reshape", {x, rw.ints(out, node, {0, g, -1})}, {grouped});
  std::string scale = node.input(1), bias = node.input(2);
  if (per_channel) {  // unit scale, zero bias per group; the node's own per channel afterwards
    const int32_t type = scope.elem_type(x);
    const std::string ones = rw.fresh(node, "ones"), zeros = rw.fresh(node, "zeros");
    const std::string count = rw.ints(out, node, {g});
    for (const auto& [name, value] : {std::pair{ones, 1.0}, std::pair{zeros, 0.0}}) {
      auto* t = set_attr(rw.add(out, node, "ConstantOfShape", {count}, {name}), "value", AttributeProto::TENSOR)->mutable_t();
      t->set_data_type(type);
      t->add_dims(1);
      if (type == TensorProto::DOUBLE) t->add_double_data(value);
      else if (type == TensorProto::FLOAT) t->add_float_data(static_cast<float>(value));
      else rw.refuse(node, "is per channel on a type other than float and double");
    }
    scale = ones, bias = zeros;
  }
  auto& norm = rw.add(out, node, "InstanceNormalization", {grouped, scale, bias}, {normal});
  if (eps) *norm.add_attribute() = *eps;
  if (!per_channel) {
    rw.add(out, node, "Reshape", {normal, shape}, {y});
    return;
  }
  const std::string back = rw.fresh(node, "back"), rows = rw.fresh(node, "rows"), s = rw.fresh(node, "scale"),
                    b = rw.fresh(node, "bias"), scaled = rw.fresh(node, "scaled"), shifted = rw.fresh(node, "shifted");
  rw.add(out, node, "Reshape", {normal, shape}, {back});
  rw.add(out, node, "Reshape", {back, rw.ints(out, node, {0, 0, -1})}, {rows});
  rw.add(out, node, "Unsqueeze", {node.input(1), rw.ints(out, node, {1})}, {s});
  rw.add(out, node, "Unsqueeze", {node.input(2), rw.ints(out, node, {1})}, {b});
  rw.add(out, node, "Mul", {rows, s}, {scaled});
  rw.add(out, node, "Add", {scaled, b}, {shifted});
  rw.add(out, node, "Reshape", {shifted, shape}, {y});
}

void group_norm_18(Rewriter& rw, const Scope& scope, NodeProto node, std::vector<NodeProto>& out) {
  group_norm(rw, scope, node, out, false);
}

void group_norm_21(Rewriter& rw, const Scope& scope, NodeProto node, std::vector<NodeProto>& out) {
  group_norm(rw, scope, node, out, true);
}

// GridSample-20: N-d, its modes renamed from opset 16's bilinear and bicubic.
void grid_sample(Rewriter&, const Scope&, NodeProto node, std::vector<NodeProto>& out) {
  const std::string mode = string_attr(node, "mode", "linear");
  set_attr(node, "mode", AttributeProto::STRING)
      ->set_s(mode == "linear" ? "bilinear" : mode == "cubic" ? "bicubic" : mode);
  out.push_back(std::move(node));
}

// Versions that only add element types (float8, int4, strings): the node is as at 17.
void same(Rewriter&, const Scope&, NodeProto node, std::vector<NodeProto>& out) { out.push_back(std::move(node)); }

// Ops new since 17, or changed so no opset-17 form computes the same.
void refused(Rewriter& rw, const Scope&, NodeProto node, std::vector<NodeProto>&) {
  rw.refuse(node, node.op_type() == "DFT" ? "takes its axis as an input, which opset 17's DFT does not"
                                          : "is not in opset 17");
}

struct Change {
  const char* op;
  int64_t version;
  Adapter adapt;
};

// Each op's versions after 17, and how each is read at 17.
const std::vector<Change>& changes() {
  static const std::vector<Change> table = [] {
    std::vector<Change> t;
    for (const char* op : {"ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax", "ReduceMean",
                           "ReduceMin", "ReduceProd", "ReduceSumSquare"})
      t.push_back({op, 18, reduce_axes});
    t.insert(t.end(), {{"ReduceMax", 20, reduce_axes}, {"ReduceMin", 20, reduce_axes},
                       {"Split", 18, split_outputs},
                       {"Resize", 18, resize}, {"Resize", 19, resize},
                       {"Pad", 18, pad}, {"Pad", 19, pad}, {"Pad", 21, pad},
                       {"ScatterElements", 18, scatter}, {"ScatterND", 18, scatter},
                       {"LpPool", 18, lp_pool}, {"AveragePool", 19, average_pool},
                       {"Cast", 19, cast}, {"CastLike", 19, cast}, {"Cast", 21, cast}, {"CastLike", 21, cast},
                       {"QuantizeLinear", 19, quantize}, {"QuantizeLinear", 21, quantize},
                       {"DequantizeLinear", 19, quantize}, {"DequantizeLinear", 21, quantize},
                       {"Mish", 18, mish}, {"Gelu", 20, gelu},
                       {"GroupNormalization", 18, group_norm_18}, {"GroupNormalization", 21, group_norm_21},
                       {"GridSample", 20, grid_sample}, {"DFT", 20, refused}});
    for (const char* op : {"Constant", "Identity", "Reshape", "Shape", "Size", "If", "Loop", "Scan"}) {
      t.push_back({op, 19, same});
      t.push_back({op, 21, same});
    }
    for (const char* op : {"ConstantOfShape"}) t.insert(t.end(), {{op, 20, same}, {op, 21, same}});
    for (const char* op : {"Equal"}) t.push_back({op, 19, same});
    for (const char* op : {"IsInf", "IsNaN"}) t.push_back({op, 20, same});
    for (const char* op : {"Flatten", "Squeeze", "Unsqueeze", "Transpose", "QLinearMatMul"}) t.push_back({op, 21, same});
    for (const char* op : {"OptionalGetElement", "OptionalHasElement"}) t.push_back({op, 18, same});
    for (const char* op : {"BitwiseAnd", "BitwiseOr", "BitwiseXor", "BitwiseNot", "CenterCropPad", "Col2Im"})
      t.push_back({op, 18, refused});
    t.push_back({"DeformConv", 19, refused});
    for (const char* op : {"AffineGrid", "ImageDecoder", "RegexFullMatch", "StringConcat", "StringSplit"})
      t.push_back({op, 20, refused});
    return t;
  }();
  return table;
}

// The newest change of the op at or before the model's opset, if any is after 17.
const Change* change_of(const std::string& op, int64_t opset) {
  const Change* found = nullptr;
  for (const auto& c : changes())
    if (op == c.op && c.version <= opset && (!found || c.version > found->version)) found = &c;
  return found;
}

int64_t rewrite_graph(onnx::GraphProto& graph, const Scope* outer, Rewriter& rw, int64_t opset) {
  int64_t rewritten = 0;
  const Scope scope(graph, outer);
  std::vector<NodeProto> nodes;
  nodes.reserve(static_cast<size_t>(graph.node_size()));
  const auto* registry = onnx::OpSchemaRegistry::Instance();
  for (auto& node : *graph.mutable_node()) {
    for (auto& a : *node.mutable_attribute()) {
      if (a.has_g()) rewritten += rewrite_graph(*a.mutable_g(), &scope, rw, opset);
      for (auto& sub : *a.mutable_graphs()) rewritten += rewrite_graph(sub, &scope, rw, opset);
    }
    if (!default_domain(node)) {
      nodes.push_back(std::move(node));
      continue;
    }
    const Change* change = change_of(node.op_type(), opset);
    if (!change) {
      if (!registry->GetSchema(node.op_type(), static_cast<int>(kReadOpset)))
        rw.refuse(node, "is not an op aoe knows at any opset");
      nodes.push_back(std::move(node));
      continue;
    }
    // A version that adds types only changes nothing: no need to compare a Constant's tensor with itself.
    if (change->adapt == same) {
      nodes.push_back(std::move(node));
      continue;
    }
    // Every op rewritten reads a first input and writes a first output; before the checker, nothing says it has them.
    if (node.input_size() == 0 || node.input(0).empty() || node.output_size() == 0 || node.output(0).empty())
      rw.refuse(node, "has no first input or no first output");
    const size_t before = nodes.size();
    const std::string text = node.SerializeAsString();
    change->adapt(rw, scope, std::move(node), nodes);
    if (nodes.size() != before + 1 || nodes.back().SerializeAsString() != text) ++rewritten;
  }
  graph.clear_node();
  for (auto& n : nodes) *graph.add_node() = std::move(n);
  return rewritten;
}

// float8, int4 and float4 tensors: no device holds them, and ONNX 1.12 cannot check them.
void refuse_newer_types(const onnx::GraphProto& graph, const fs::path& path) {
  const auto refuse = [&](const std::string& name, int type) {
    throw Error(StatusCode::unsupported, "ONNX model " + quoted(path) + ": tensor '" + name + "' has element type " +
                                             std::to_string(type) +
                                             " (float8, int4 or float4), which aoe does not read; "
                                             "re-export the model in float32, float16 or int8");
  };
  for (const auto& init : graph.initializer())
    if (init.data_type() > kNewestElementType) refuse(init.name(), init.data_type());
  for (const auto* list : {&graph.input(), &graph.output(), &graph.value_info()})
    for (const auto& v : *list)
      if (v.type().has_tensor_type() && v.type().tensor_type().elem_type() > kNewestElementType)
        refuse(v.name(), v.type().tensor_type().elem_type());
}

}  // namespace

int64_t read_as_opset17(onnx::ModelProto& model, const fs::path& path) {
  if (model.ir_version() > kNewestReadIr)
    throw Error(StatusCode::unsupported, "ONNX model " + quoted(path) + " has IR version " +
                                             std::to_string(model.ir_version()) + "; aoe reads IR versions up to " +
                                             std::to_string(kNewestReadIr) + ": save it with an older ONNX");
  if (model.ir_version() > kCheckerIrVersion) {
    refuse_newer_types(model.graph(), path);
    model.set_ir_version(kCheckerIrVersion);
  }
  for (auto& import : *model.mutable_opset_import()) {
    if (!import.domain().empty() && import.domain() != "ai.onnx") continue;
    const int64_t opset = import.version();
    if (opset <= kReadOpset || opset > kNewestReadOpset) return 0;  // the frontend names an opset out of range
    Rewriter rw(path, opset);
    const int64_t rewritten = rewrite_graph(*model.mutable_graph(), nullptr, rw, opset);
    import.set_version(kReadOpset);
    return rewritten;
  }
  return 0;
}

}  // namespace aoe::host
