// Softmax along one axis as a norm-pattern kernel.
#pragma once

#include "aoe/sdk/op_task.h"
#include "norm_model.h"
#include "soc.h"

namespace aoe::sim {

NormProblem softmax_problem(const sdk::OpTask& task, const Soc& soc);

}  // namespace aoe::sim
