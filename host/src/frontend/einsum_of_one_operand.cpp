#include "einsum_of_one_operand.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "aoe/sdk/einsum_equation.h"
#include "constant_folding.h"
#include "written_nodes.h"

namespace aoe::host {
namespace {

// What the rewrite does: the operand's axes summed, then the order the
// kept ones go to (empty where they are already in the output's order).
struct Plan {
  std::vector<int64_t> summed, perm;
};

std::optional<Plan> plan_of(const onnx::GraphProto& graph, const onnx::NodeProto& node) {
  const auto* equation = find_attr(node, "equation");
  if (!equation || node.input_size() != 1 || node.output_size() != 1) return std::nullopt;
  const auto dims = known_dims(graph, node.input(0));
  if (!dims) return std::nullopt;
  const auto labels = sdk::einsum_labels(equation->s(), {*dims});
  if (!labels) return std::nullopt;
  const auto& in = labels->dim_labels[0];
  const auto& out = labels->out_labels;
  Plan plan;
  std::vector<int> kept;
  for (size_t i = 0; i < in.size(); ++i) {
    if (std::count(in.begin(), in.end(), in[i]) > 1) return std::nullopt;  // a diagonal
    if (std::find(out.begin(), out.end(), in[i]) == out.end()) plan.summed.push_back(static_cast<int64_t>(i));
    else kept.push_back(in[i]);
  }
  if (kept != out)
    for (const int label : out) plan.perm.push_back(std::find(kept.begin(), kept.end(), label) - kept.begin());
  return plan;
}

void emit(const onnx::NodeProto& node, const Plan& plan, WrittenNodes& out) {
  const std::string& y = node.output(0);
  std::string x = node.input(0);
  if (!plan.summed.empty()) {
    const std::string to = plan.perm.empty() ? y : y + "/einsum_sum";
    out.reduce_sum(x, plan.summed, to);
    x = to;
  }
  if (!plan.perm.empty()) out.transpose(x, plan.perm, y, y + "/einsum_to_output");
  if (plan.summed.empty() && plan.perm.empty()) out.add("Identity", y + "/einsum_identity", {x}, {y});
}

}  // namespace

int64_t einsum_of_one_operand(onnx::GraphProto& graph, int64_t opset) {
  return rewrite_nodes(graph, opset, [&](const onnx::NodeProto& node, WrittenNodes& out) {
    const auto plan = default_domain(node) && node.op_type() == "Einsum" ? plan_of(graph, node) : std::nullopt;
    if (plan) emit(node, *plan, out);
    return plan.has_value();
  });
}

}  // namespace aoe::host
