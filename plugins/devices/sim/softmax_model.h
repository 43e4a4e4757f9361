// Softmax, LogSoftmax and Hardmax along one axis, and the losses over
// classes built on them, as norm-pattern kernels.
#pragma once

#include "aoe/sdk/op_task.h"
#include "norm_model.h"
#include "soc.h"

namespace aoe::sim {

NormProblem softmax_problem(const sdk::OpTask& task, const Soc& soc);
// SoftmaxCrossEntropyLoss and NegativeLogLikelihoodLoss: rows of classes, one loss each.
NormProblem loss_problem(const sdk::OpTask& task, const Soc& soc);

}  // namespace aoe::sim
