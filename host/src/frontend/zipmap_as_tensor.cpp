#include "zipmap_as_tensor.h"

#include <onnx/onnx_pb.h>

#include <set>
#include <string>

namespace aoe::host {

int64_t zipmap_as_tensor(onnx::GraphProto& graph) {
  std::set<std::string> outputs, rewritten;
  for (const auto& out : graph.output()) outputs.insert(out.name());
  for (auto& node : *graph.mutable_node()) {
    if (node.op_type() != "ZipMap" || node.domain() != "ai.onnx.ml" || node.input_size() != 1 ||
        node.output_size() != 1 || !outputs.count(node.output(0)))
      continue;
    rewritten.insert(node.output(0));
    node.set_op_type("Identity");
    node.clear_domain();
    node.clear_attribute();
  }
  for (auto& out : *graph.mutable_output()) {
    if (!rewritten.count(out.name())) continue;
    out.clear_type();
    out.mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  }
  return static_cast<int64_t>(rewritten.size());
}

}  // namespace aoe::host
