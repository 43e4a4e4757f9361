#include "value_attributes.h"

#include <onnx/onnx_pb.h>

#include <cstring>
#include <optional>
#include <string>

#include "shape_folding.h"

namespace aoe::host {
namespace {

using T = onnx::TensorProto;

// A one-element float tensor: Pad's constant_value, Clip's bounds.
std::optional<double> float_scalar(const T& t) {
  if (t.data_type() != T::FLOAT || t.data_location() == T::EXTERNAL) return std::nullopt;
  for (auto d : t.dims())
    if (d != 1) return std::nullopt;
  if (t.has_raw_data()) {
    if (t.raw_data().size() != sizeof(float)) return std::nullopt;
    float v;
    std::memcpy(&v, t.raw_data().data(), sizeof v);  // little-endian, as the host
    return v;
  }
  if (t.float_data_size() != 1) return std::nullopt;
  return t.float_data(0);
}

std::optional<double> float_constant(const onnx::GraphProto& proto, const std::string& name) {
  for (const auto& init : proto.initializer())
    if (init.name() == name) return float_scalar(init);
  for (const auto& node : proto.node()) {
    if (node.op_type() != "Constant" || node.output_size() != 1 || node.output(0) != name) continue;
    for (const auto& a : node.attribute()) {
      if (a.name() == "value") return float_scalar(a.t());
      if (a.name() == "value_float") return a.f();
    }
  }
  return std::nullopt;
}

}  // namespace

void add_value_attributes(const onnx::GraphProto& proto, int64_t opset, sdk::Graph& graph) {
  std::optional<std::map<std::string, IntTensor>> folded;  // computed for the first node that needs it
  const auto ints = [&](const sdk::Node& node, size_t index) -> const IntTensor* {
    if (index >= node.inputs.size() || node.inputs[index].empty()) return nullptr;
    if (!folded) folded = fold_shape_values(proto);
    const auto it = folded->find(node.inputs[index]);
    return it == folded->end() ? nullptr : &it->second;
  };
  // An attribute from input `index`, unless the node has it already.
  const auto set_ints = [&](sdk::Node& node, size_t index, const char* attr) {
    if (node.attrs.contains(attr)) return;
    if (const auto* v = ints(node, index)) node.attrs[attr] = v->values;
  };
  const auto set_float = [&](sdk::Node& node, size_t index, const char* attr) {
    if (index >= node.inputs.size() || node.inputs[index].empty() || node.attrs.contains(attr)) return;
    if (const auto v = float_constant(proto, node.inputs[index])) node.attrs[attr] = *v;
  };
  for (auto& node : graph.nodes) {
    if (node.op_type == "Slice" && opset >= 10) {
      set_ints(node, 1, "starts");
      set_ints(node, 2, "ends");
      set_ints(node, 3, "axes");
      set_ints(node, 4, "steps");
    } else if (node.op_type == "Pad" && opset >= 11) {
      set_ints(node, 1, "pads");
      set_float(node, 2, "value");
    } else if (node.op_type == "Clip" && opset >= 11) {
      set_float(node, 1, "min");
      set_float(node, 2, "max");
    } else if (node.op_type == "Gather") {
      set_ints(node, 1, "indices");
    }
  }
}

}  // namespace aoe::host
