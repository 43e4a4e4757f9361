#include "einsum_shape_inference.h"

#include <optional>
#include <string>
#include <vector>

#include "aoe/sdk/einsum_equation.h"
#include "aoe/sdk/error.h"
#include "constant_folding.h"
#include "model_file.h"

namespace aoe::host {

void infer_einsum_shape(onnx::InferenceContext& ctx) {
  onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
  std::vector<std::vector<int64_t>> shapes;
  for (size_t i = 0; i < ctx.getNumInputs(); ++i) {
    if (!onnx::hasInputShape(ctx, i)) return;
    auto& dims = shapes.emplace_back();
    for (const auto& d : onnx::getInputShape(ctx, i).dim()) dims.push_back(d.has_dim_value() ? d.dim_value() : -1);
  }
  const auto* equation = ctx.getAttribute("equation");
  if (!equation || !equation->has_s()) fail_shape_inference("attribute 'equation' is missing");
  std::string why;
  const auto labels = sdk::einsum_labels(equation->s(), shapes, &why);
  if (!labels) fail_shape_inference(why);
  onnx::TensorShapeProto out;
  for (const int64_t d : labels->output_dims()) {
    auto* dim = out.add_dim();
    if (d >= 0) dim->set_dim_value(d);
  }
  onnx::updateOutputShape(ctx, 0, out);
}

void check_einsum_equations(const onnx::GraphProto& graph, const std::filesystem::path& path) {
  for (const auto& node : graph.node()) {
    if (node.op_type() != "Einsum" || !default_domain(node)) continue;
    const auto* equation = find_attr(node, "equation");
    std::vector<std::vector<int64_t>> shapes;
    for (const auto& input : node.input()) {
      auto dims = ranked_dims(graph, input);
      if (!dims) break;
      shapes.push_back(std::move(*dims));
    }
    if (!equation || shapes.size() != static_cast<size_t>(node.input_size())) continue;
    std::string why;
    if (!sdk::einsum_labels(equation->s(), shapes, &why))
      throw sdk::Error(sdk::StatusCode::invalid_argument,
                       "ONNX model " + quoted(path) + ": Einsum node '" + node_label(node) + "' (equation '" +
                           equation->s() + "'): " + why + "; fix the equation or re-export the model");
  }
}

}  // namespace aoe::host
