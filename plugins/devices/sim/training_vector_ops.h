// The vector kernels of a training step (batch-norm's update and data
// gradient, activation gradients, AddN, the optimizers' updates) as
// elementwise chains: each streams its tensors of the full size once (what
// it reads, and the further outputs it writes beside the main one), keeps
// per-channel statistics and scalars in UB, and runs CANN's instructions
// per element. Fused followers (Relu and Add after BNTrainingUpdate,
// ApplyMomentum after the unscaling Mul) lengthen the chain.
#pragma once

#include <string>

#include "aoe/sdk/op_task.h"
#include "elementwise_model.h"
#include "soc.h"

namespace aoe::sim {

// An anchor this file models, with its fused ops.
bool is_training_vector_op(const sdk::OpTask& task);

// Throws invalid_argument naming the op and the tensor for an input count,
// rank or shape the op does not take; unsupported for a follower it does
// not fuse.
ElementwiseProblem training_vector_problem(const sdk::OpTask& task, const Soc& soc);

}  // namespace aoe::sim
