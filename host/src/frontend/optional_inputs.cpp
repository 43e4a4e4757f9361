#include "optional_inputs.h"

#include <onnx/onnx_pb.h>

#include <map>
#include <string>

#include "constant_folding.h"

namespace aoe::host {
namespace {

// Reads of the fed optionals in `graph` and its subgraphs, made reads of the tensors.
void read_as_tensors(onnx::GraphProto& graph, const std::map<std::string, std::string>& has_element) {
  for (auto& node : *graph.mutable_node()) {
    for (auto& a : *node.mutable_attribute()) {
      if (a.has_g()) read_as_tensors(*a.mutable_g(), has_element);
      for (auto& g : *a.mutable_graphs()) read_as_tensors(g, has_element);
    }
    if (node.input_size() != 1 || !default_domain(node)) continue;
    const auto it = has_element.find(node.input(0));
    if (it == has_element.end()) continue;
    if (node.op_type() == "OptionalHasElement") {
      node.set_op_type("Identity");
      node.set_input(0, it->second);
    } else if (node.op_type() == "OptionalGetElement") {
      node.set_op_type("Identity");
    }
  }
}

}  // namespace

int64_t optional_inputs_as_tensors(onnx::GraphProto& graph) {
  std::map<std::string, std::string> has_element;  // input -> the constant true it now holds
  for (auto& input : *graph.mutable_input()) {
    if (!input.type().has_optional_type() || !input.type().optional_type().elem_type().has_tensor_type()) continue;
    const onnx::TypeProto tensor = input.type().optional_type().elem_type();
    *input.mutable_type() = tensor;
    auto* yes = graph.add_initializer();
    yes->set_name(input.name() + "/has_element");
    yes->set_data_type(onnx::TensorProto::BOOL);
    yes->add_int32_data(1);
    has_element[input.name()] = yes->name();
  }
  if (!has_element.empty()) read_as_tensors(graph, has_element);
  return static_cast<int64_t>(has_element.size());
}

}  // namespace aoe::host
