// Elementwise ops with numpy broadcasting: each output element is an
// expression of its inputs' elements, read where the broadcast puts them.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
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

// The value of a one-element constant tensor, where the run has it: a
// kernel joining the op that reads it writes it into its source. None: not such a tensor.
using ScalarOf = std::function<std::optional<double>(const std::string& tensor)>;

// Whether `tensor` is a one-element constant whose value `scalar` gives: a
// chain's kernel writes it into its source.
bool is_scalar(const sdk::Graph& graph, const std::string& tensor, const ScalarOf& scalar);

// Whether `tensor` may be read by a chain's kernel as one more operand.
using OperandCheck = std::function<bool(const std::string& tensor)>;

// Whether `node` may join a chain of elementwise ops run as one kernel,
// whose values so far (what entered it and what it computed, each of the
// chain's shape) are `values`: an op that follows_in_chain, reading one of
// them; or an elementwise op whose every input it reads is a value, a
// tensor the kernel reads already (`shared`: chain_operands' names), a
// one-element constant `scalar` gives, or a tensor of a shape that
// broadcasts to the chain's that `further` takes as one more operand (the
// attention mask Add after the scaling Div); at least one a value, its
// output of the chain's shape (Paddle's hardswish, x * Clip(x + 3, 0, 6) / 6; x * Sigmoid(x)).
bool joins_chain(const sdk::Graph& graph, const sdk::Node& node, const std::set<std::string>& values, const ScalarOf& scalar,
                 const std::map<std::string, std::string>& shared = {}, const OperandCheck& further = {});
// The tensors `node` (which joins_chain) reads as further operands: none
// of `values`, `shared` or the scalars, in the order it reads them.
std::vector<std::string> further_operands(const sdk::Graph& graph, const sdk::Node& node, const std::set<std::string>& values,
                                          const ScalarOf& scalar, const std::map<std::string, std::string>& shared);

// What a chain of ops computes of the tensor `entering` (kChainEntering in
// its text), each joining the chain of the values before it (joins_chain):
// an expression, and the #define lines it needs, named apart by position
// (`first_position` for the first). `shared`: tensors the kernel reads at
// each output element already (ChainOperands::names), which the ops may
// read too, each as the expression it maps to. Throws sdk::Error(invalid_argument) for ops that do not form such a chain.
inline constexpr const char* kChainEntering = "aoe_v";
struct ChainExpression {
  std::string text = kChainEntering, defines;
  // The expression with `value` (an expression itself) for what enters it.
  std::string of(const std::string& value) const;
  // Whether it is short enough to join more ops: each value is written out
  // wherever it is read, which NVRTC folds but must parse.
  bool fits() const;
};
ChainExpression follow_on_expression(const sdk::Graph& graph, const std::string& entering, const std::vector<const sdk::Node*>& chain,
                                     size_t first_position, const ScalarOf& scalar = {},
                                     const std::map<std::string, std::string>& shared = {});
// What the kernel of a chain starting at the elementwise op `first` reads
// at each output element besides the values it computes, each by the name
// its expression reads it by: first's inputs (v0, v1... as its own
// expression reads them), then further operands the later ops read.
struct ChainOperands {
  std::map<std::string, std::string> names;
  std::vector<std::string> further;  // past first's inputs, in the order they are added
  size_t first_reads = 0;            // the names first's expression reads
  // Names `tensor` as the next operand, past those before it.
  void add(const std::string& tensor);
};
ChainOperands chain_operands(const OpNode& first);
// One kernel for a chain: any elementwise op, then ops that join the chain
// of the values before them (joins_chain), reading `further` (in
// ChainOperands' order) besides; its y is the last one's output. Its
// OpKernel::inputs index the first one's inputs, then past them `further`.
// Throws sdk::Error(invalid_argument) for a chain that is not one.
OpKernel elementwise_chain_kernel(const sdk::Graph& graph, const std::vector<const sdk::Node*>& chain,
                                  const std::vector<std::string>& further, const GpuLimits& limits, const ScalarOf& scalar = {});

}  // namespace aoe::cuda
