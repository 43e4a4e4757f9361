// The update of one trainable weight at the end of a step: weight decay,
// unscaling by the loss scale in mixed precision, and the optimizer's kernels.
#pragma once

#include <string>
#include <vector>

#include "step_builder.h"

namespace aoe::training {

enum class Optimizer { momentum, adam, lamb };

Optimizer optimizer_from_string(const std::string& name);  // throws, naming the choices
const char* to_string(Optimizer optimizer);

struct WeightUpdate {
  std::string weight;        // the float32 master weight
  std::string grad;          // its gradient, float32
  std::string forward_node;  // the forward node that reads it: the kernels' names say so
  bool decays = false;       // conv and matmul weights: weight decay before the update
};

// Appends the kernels; `loss_scale` is the scalar the gradients are unscaled by
// (mixed precision), "" where they are not scaled.
void add_optimizer_kernels(StepBuilder& step, const WeightUpdate& update, Optimizer optimizer,
                           const std::string& loss_scale);

}  // namespace aoe::training
