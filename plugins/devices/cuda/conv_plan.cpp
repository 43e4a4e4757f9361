#include "conv_plan.h"

#include <algorithm>

#include "aoe/sdk/error.h"
#include "conv_kernel.h"
#include "op_node.h"
#include "reference_data.h"

namespace aoe::cuda {
namespace {

[[noreturn]] void unsupported(const sdk::OpTask& task, const std::string& why) {
  throw sdk::Error(sdk::StatusCode::unsupported, "the cuda device tunes a Conv's (or ConvTranspose's) kernel, but " + task.name + ": " + why);
}

// The task as a graph: its Conv (inputs x0.., its own first), then the ops
// fused after it in order, each binary one's other operand the task's next
// input; the last writes y.
sdk::Graph conv_graph(const sdk::OpTask& task, size_t conv_inputs) {
  sdk::Graph g;
  g.name = task.name;
  for (size_t i = 0; i < task.inputs.size(); ++i) {
    const std::string name = "x" + std::to_string(i);
    g.tensors[name] = task.inputs[i];
    g.tensors[name].name = name;
  }
  const auto node = [&](const std::string& op, std::vector<std::string> inputs, const std::string& out) {
    sdk::Node n;
    n.name = task.name + "/" + std::to_string(g.nodes.size());
    n.op_type = op;
    n.inputs = std::move(inputs);
    n.outputs = {out};
    g.tensors[out] = task.outputs.at(0);
    g.tensors[out].name = out;
    g.nodes.push_back(std::move(n));
  };
  std::vector<std::string> conv;
  for (size_t i = 0; i < conv_inputs; ++i) conv.push_back("x" + std::to_string(i));
  node(task.op_type, conv, "t0");
  g.nodes.back().attrs = task.attrs;
  size_t next_input = conv_inputs;
  for (const auto& op : task.fused_ops) {
    const std::string before = g.nodes.back().outputs[0], out = "t" + std::to_string(g.nodes.size());
    if (op == "Add")
      node(op, {before, "x" + std::to_string(next_input++)}, out);
    else
      node(op, {before}, out);
  }
  g.nodes.back().outputs[0] = "y";
  g.tensors["y"] = task.outputs.at(0);
  g.tensors["y"].name = "y";
  g.inputs = {"x0"};
  g.outputs = {"y"};
  return g;
}

}  // namespace

ConvPlan::ConvPlan(const sdk::OpTask& task, const GpuLimits& limits, const CudaOptions& options) : limits_(limits) {
  // OPAT fuses the GEMM's epilogue types after any op: an Add of a tensor of
  // the output's shape, then unary ops, are the Conv's epilogue (ConvEpilogue).
  size_t adds = 0;
  for (const auto& op : task.fused_ops) adds += op == "Add";
  const size_t conv_inputs = task.inputs.size() - std::min(adds, task.inputs.size());
  if (conv_inputs < 2 || conv_inputs > 3 || task.outputs.size() != 1) unsupported(task, "it is no Conv of 2 or 3 inputs");
  for (const auto* tensors : {&task.inputs, &task.outputs})
    for (const auto& t : *tensors)
      if (!t.fully_known()) unsupported(task, "its dims are not all known (set them with --input_shape)");
  if (adds > 1 || (adds == 1 && task.fused_ops.front() != "Add"))
    unsupported(task, "its epilogue takes one Add, first, not " + nlohmann::json(task.fused_ops).dump());
  if (adds == 1 && task.inputs.back().shape != task.outputs[0].shape)
    unsupported(task, "the Add after it takes a tensor of its output's shape, not a broadcast one");
  graph_ = conv_graph(task, conv_inputs);
  std::vector<const sdk::Node*> follow;
  for (size_t i = adds + 1; i < graph_.nodes.size(); ++i) {
    follow.push_back(&graph_.nodes[i]);
    if (!follows_in_chain(graph_, graph_.nodes[i])) unsupported(task, "its epilogue applies no " + graph_.nodes[i].op_type);
  }
  epilogue_.residual = adds == 1;
  epilogue_.follow_on = follow_on_expression(graph_, graph_.nodes[adds].outputs[0], follow, 1);
  space_ = conv_kernel_space(OpNode(graph_, graph_.nodes[0]), limits_);
  // Each output element of a Conv sums a window of the weights' per-filter
  // size; each input element of a ConvTranspose adds into one of its per-channel size.
  const sdk::TensorDesc& weights = task.inputs[1];
  const sdk::TensorDesc& summed = task.op_type == "ConvTranspose" ? task.inputs[0] : task.outputs[0];
  const double macs = static_cast<double>(summed.elements()) * static_cast<double>(weights.elements() / std::max<int64_t>(weights.shape.at(0), 1));
  const int64_t outputs = graph_.tensor("y").elements();
  const bool residual = epilogue_.residual;
  data_.made_by([task, seed = options.seed, macs, conv_inputs, outputs, residual] {
    const cpu::TaskData data = reference_data(task, seed, macs);
    // x0..x7 and y, as every op kernel takes them: the Conv's own first, the
    // residual in its slot, a float in each the kernel does not read.
    std::vector<std::string> slots(kOpKernelInputs, std::string(sizeof(float), '\0'));
    for (size_t i = 0; i < conv_inputs; ++i) slots[i] = bytes_of(data.inputs.at(i));
    if (residual) slots[kConvResidualSlot] = bytes_of(data.inputs.at(conv_inputs));
    PlanData out;
    for (int i = 0; i < kOpKernelInputs; ++i) out.arguments.push_back(buffer("x" + std::to_string(i), slots[static_cast<size_t>(i)]));
    out.arguments.push_back(buffer("y", std::string(static_cast<size_t>(outputs) * sizeof(float), '\0'), true));
    if (!data.expected.empty()) out.expected = bytes_of(data.expected.at(0));
    return out;
  });
}

sdk::Measurement ConvPlan::check(const sdk::Config& config) const {
  return conv_kernel_check(OpNode(graph_, graph_.nodes[0]), config, limits_);
}

OpKernel ConvPlan::kernel(const sdk::Config& config) const {
  return conv_kernels(OpNode(graph_, graph_.nodes[0]), limits_, epilogue_, config).at(0);
}

}  // namespace aoe::cuda
