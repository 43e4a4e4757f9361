#include "value_attributes.h"

#include <onnx/onnx_pb.h>

#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <string>

#include "constant_folding.h"

namespace aoe::host {

const char* integer_value_attribute(const std::string& op_type, size_t input) {
  static const std::map<std::pair<std::string, size_t>, const char*> kAttributes = {
      {{"GatherElements", 1}, "indices"},
      {{"ScatterElements", 1}, "indices"},
      {{"Scatter", 1}, "indices"},
      {{"NegativeLogLikelihoodLoss", 1}, "target"},
      {{"SoftmaxCrossEntropyLoss", 1}, "target"},
      {{"Where", 0}, "condition"},
      {{"Tile", 1}, "repeats"},
      {{"Expand", 1}, "shape"},
      {{"Compress", 1}, "condition"},
      {{"GatherND", 1}, "indices"},
      {{"ScatterND", 1}, "indices"},
      {{"OneHot", 0}, "indices"},
      {{"ReverseSequence", 1}, "sequence_lens"},
      {{"RNN", 4}, "sequence_lens"},
      {{"GRU", 4}, "sequence_lens"},
      {{"LSTM", 4}, "sequence_lens"},
      {{"Dropout", 2}, "training_mode"},
      {{"MaxUnpool", 1}, "indices"},
      {{"RoiAlign", 2}, "batch_indices"},
      {{"ArrayFeatureExtractor", 1}, "indices"},
      {{"NonMaxSuppression", 2}, "max_output_boxes_per_class"},
  };
  const auto it = kAttributes.find({op_type, input});
  return it == kAttributes.end() ? nullptr : it->second;
}

namespace {

// A tensor of no elements has one value, known before the model runs: a
// graph input declared [0] (ReduceSum's axes, fed empty) holds nothing else.
std::optional<KnownTensor> empty_value(const sdk::Graph& graph, const std::string& name) {
  const auto it = graph.tensors.find(name);
  if (it == graph.tensors.end() || !it->second.fully_known() || it->second.elements() != 0) return std::nullopt;
  KnownTensor t;
  t.elem_type = sdk::is_float(it->second.dtype) ? onnx::TensorProto::FLOAT : onnx::TensorProto::INT64;
  t.dims = it->second.shape;
  return t;
}

}  // namespace

int64_t add_value_attributes(const onnx::GraphProto& proto, int64_t opset, sdk::Graph& graph) {
  std::map<std::string, const onnx::TensorProto*> initializers;
  for (const auto& init : proto.initializer()) initializers[init.name()] = &init;
  const auto known = [&](const sdk::Node& node, size_t index) -> std::optional<KnownTensor> {
    if (index >= node.inputs.size() || node.inputs[index].empty()) return std::nullopt;
    const auto it = initializers.find(node.inputs[index]);
    if (it != initializers.end()) return read_known(*it->second);
    return empty_value(graph, node.inputs[index]);
  };
  bool changed = false;
  // An attribute from input `index`, unless the node has it already.
  const auto set_ints = [&](sdk::Node& node, size_t index, const char* attr) {
    if (node.attrs.contains(attr)) return;
    if (const auto v = known(node, index); v && !v->is_real()) node.attrs[attr] = v->ints, changed = true;
  };
  // A one-element float tensor: Pad's constant_value, Clip's bounds. JSON,
  // which carries attributes to the device, has no infinity or NaN (they
  // would arrive as null): such a value stays the input it is, which the
  // device reads as the model runs.
  const auto set_float = [&](sdk::Node& node, size_t index, const char* attr) {
    if (node.attrs.contains(attr)) return;
    if (const auto v = known(node, index); v && v->is_real() && v->reals.size() == 1 && std::isfinite(v->reals[0]))
      node.attrs[attr] = v->reals[0], changed = true;
  };
  // Clip's bound, but one at `unbounded` (torch.clamp(min=...) exports max
  // = +inf) is no bound, as the absent attribute says; the device reads no
  // bound from an input, so another value JSON cannot carry is refused.
  const auto set_bound = [&](sdk::Node& node, size_t index, const char* attr, double unbounded) {
    const auto v = known(node, index);
    if (node.attrs.contains(attr) || !v || !v->is_real() || v->reals.size() != 1 || v->reals[0] == unbounded) return;
    if (!std::isfinite(v->reals[0]))
      throw sdk::Error(sdk::StatusCode::invalid_argument,
                       "Clip '" + node.name + "': " + attr + " " + std::to_string(v->reals[0]) +
                           " is not a bound aoe carries (a finite value, or -inf for min and +inf for max: none)");
    set_float(node, index, attr);
  };
  // A float list: Resize's scales; an empty one is not given.
  const auto set_floats = [&](sdk::Node& node, size_t index, const char* attr) {
    if (node.attrs.contains(attr)) return;
    if (const auto v = known(node, index); v && v->is_real() && !v->reals.empty())
      node.attrs[attr] = v->reals, changed = true;
  };
  int64_t nodes = 0;
  for (auto& node : graph.nodes) {
    changed = false;
    if (node.op_type == "Slice" && opset >= 10) {
      set_ints(node, 1, "starts");
      set_ints(node, 2, "ends");
      set_ints(node, 3, "axes");
      set_ints(node, 4, "steps");
    } else if (node.op_type == "Pad" && opset >= 11) {
      set_ints(node, 1, "pads");
      set_float(node, 2, "value");
    } else if (node.op_type == "Clip" && opset >= 11) {
      set_bound(node, 1, "min", -std::numeric_limits<double>::infinity());
      set_bound(node, 2, "max", std::numeric_limits<double>::infinity());
    } else if (node.op_type == "Gather") {
      set_ints(node, 1, "indices");
    } else if (node.op_type == "Resize") {
      set_floats(node, opset >= 11 ? 2 : 1, "scales");
    } else if (node.op_type == "ReduceSum" && opset >= 13) {
      set_ints(node, 1, "axes");
    } else {
      for (size_t i = 0; i < node.inputs.size(); ++i)
        if (const char* attr = integer_value_attribute(node.op_type, i)) set_ints(node, i, attr);
    }
    // An op task lists the tensors present: which optional ones they are, where no shape tells.
    if (node.op_type == "RNN" || node.op_type == "GRU" || node.op_type == "LSTM" || node.op_type == "MatMulInteger" ||
        node.op_type == "ConvInteger" || node.op_type == "STFT") {
      for (const auto& [list, key] : {std::pair{&node.inputs, "input_slots"}, std::pair{&node.outputs, "output_slots"}}) {
        std::vector<int64_t> slots;
        for (size_t i = 0; i < list->size(); ++i)
          if (!(*list)[i].empty()) slots.push_back(static_cast<int64_t>(i));
        if (!node.attrs.contains(key)) node.attrs[key] = slots, changed = true;
      }
    }
    nodes += changed ? 1 : 0;
  }
  return nodes;
}

}  // namespace aoe::host
