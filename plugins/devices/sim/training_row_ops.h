// The row kernels of a training step as norm-pattern kernels (norm_model.h):
// Softmax's gradient (SoftmaxGradExt), a layer norm's data gradient
// (LayerNormXBackpropV2) and the loss with its gradient
// (SoftmaxCrossEntropyWithLogits). Each reads two maps of the row's size
// side by side, reduces each row in UB and writes one map.
#pragma once

#include <string>

#include "aoe/sdk/op_task.h"
#include "norm_model.h"
#include "soc.h"

namespace aoe::sim {

bool is_training_row_op(const std::string& op_type);

// Throws invalid_argument naming the op and the tensor for an input count,
// shape or axis the op does not take.
NormProblem training_row_problem(const sdk::OpTask& task, const Soc& soc);

}  // namespace aoe::sim
