#include "op_kernel.h"

#include "aoe/sdk/dropout_view.h"
#include "conv_kernel.h"
#include "copy_kernels.h"
#include "elementwise_kernel.h"
#include "op_node.h"
#include "pool_kernel.h"
#include "reduce_kernel.h"
#include "resize_kernel.h"
#include "row_kernels.h"

namespace aoe::cuda {

bool is_view(const sdk::Node& node) {
  const std::string& op = node.op_type;
  if (op == "Dropout") {
    size_t outputs = 0;
    for (const auto& o : node.outputs) outputs += !o.empty();
    return sdk::dropout_is_view(node.attrs, node.inputs.size() >= 3 && !node.inputs[2].empty(), outputs);
  }
  return op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze" || op == "Identity";
}

std::vector<OpKernel> op_kernels(const sdk::Graph& graph, const sdk::Node& node, const GpuLimits& limits) {
  const OpNode n(graph, node);
  for (size_t i = 0; i < node.outputs.size(); ++i)
    if (!node.outputs[i].empty() && (n.output(i).dtype == sdk::DType::f16 || n.output(i).dtype == sdk::DType::bf16))
      n.unsupported(std::string("output of ") + sdk::to_string(n.output(i).dtype) + " (runs hold float32)");
  const std::string& op = node.op_type;
  if (is_view(node)) n.invalid("is a view of its input: a run gives it no kernel");
  // Nothing to compute where every output is empty (a zero dim): no launch, which a grid of 0 blocks would fail.
  bool empty = true;
  for (size_t i = 0; i < node.outputs.size(); ++i) empty = empty && (node.outputs[i].empty() || n.output(i).elements() == 0);
  if (empty && !node.outputs.empty()) return {};
  if (is_elementwise_op(op)) return elementwise_kernels(n, limits);
  if (is_row_op(op)) return row_kernels(n, limits);
  if (is_copy_op(op)) return copy_kernels(n, limits);
  if (is_reduce_op(op)) return reduce_kernels(n, limits);
  if (is_pool_op(op)) return pool_kernels(n, limits);
  if (op == "Conv" || op == "ConvTranspose") return conv_kernels(n, limits);
  if (op == "Resize") return resize_kernels(n, limits);
  n.unsupported("no cuda kernel computes this op");
}

}  // namespace aoe::cuda
