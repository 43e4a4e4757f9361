// Elementwise ops with numpy broadcasting: each output element is an
// expression of its inputs' elements, read where the broadcast puts them.
#pragma once

#include <string>
#include <vector>

#include "aoe/sdk/graph.h"
#include "gpu_limits.h"
#include "op_kernel.h"
#include "op_node.h"

namespace aoe::cuda {

bool is_elementwise_op(const std::string& op_type);
// One kernel (see linear_knobs for THREADS and ITEMS).
std::vector<OpKernel> elementwise_kernels(const OpNode& node, const GpuLimits& limits);

// Whether `node` may follow an elementwise op in one kernel: an elementwise
// op of one input, keeping its shape (Relu after BatchNormalization or Add).
bool follows_in_chain(const sdk::Graph& graph, const sdk::Node& node);
// What ops that each follow the one before them (follows_in_chain, the
// first reading the tensor `entering`, v0) compute of v0: an expression,
// and the #define lines it needs, named apart by position (`first_position`
// for the first). Throws sdk::Error(invalid_argument) for ops that do not
// form such a chain.
struct ChainExpression {
  std::string text = "v0", defines;
  // The expression with `value` (an expression itself) for v0.
  std::string of(const std::string& value) const;
};
ChainExpression follow_on_expression(const sdk::Graph& graph, const std::string& entering, const std::vector<const sdk::Node*>& chain,
                                     size_t first_position);
// One kernel for a chain: any elementwise op, then ops that each follow the
// one before it (follows_in_chain); its y is the last one's output, its
// inputs the first one's. Throws sdk::Error(invalid_argument) for a chain
// that is not one.
OpKernel elementwise_chain_kernel(const sdk::Graph& graph, const std::vector<const sdk::Node*>& chain, const GpuLimits& limits);

}  // namespace aoe::cuda
