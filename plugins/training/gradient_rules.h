// One rule per forward op type: the backward kernels that turn the gradient
// of an op's outputs into the gradients of the inputs that need one.
#pragma once

#include <string>
#include <vector>

#include "step_builder.h"

namespace aoe::training {

struct GradientContext {
  StepBuilder& step;
  const Node& node;                // the forward node, reading and writing tensors as the step names them
  std::vector<std::string> dy;     // per output: its gradient, "" where none flows
  std::vector<bool> wants;         // per input: its gradient is needed
  std::vector<bool> weight;        // per input: a trainable weight (its gradient is float32)
  std::vector<std::string> saved;  // what the forward kernels kept: BN batch_mean, batch_invstd; LN mean, invstd
};

// Per input, the tensor holding its gradient; "" where none is computed.
using GradientRule = std::vector<std::string> (*)(GradientContext&);

// nullptr for an op type without a rule.
GradientRule find_gradient_rule(const std::string& op_type);
// Op types whose outputs are the inputs relabelled: their gradient needs no kernel.
bool is_view(const std::string& op_type);
// The error for a gradient that reaches an op no rule covers.
std::string no_gradient_rule(const std::string& op_type, const std::string& node);
// Every op type a gradient can flow through, sorted.
std::vector<std::string> gradient_op_types();

}  // namespace aoe::training
