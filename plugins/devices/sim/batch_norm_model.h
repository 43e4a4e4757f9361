// A BatchNormalization no Conv folds: in inference y = x * a + b with a and
// b per channel, so it runs as an elementwise kernel (CANN's BNInfer) that
// streams x and keeps the per-channel terms in UB.
#pragma once

#include "aoe/sdk/op_task.h"
#include "elementwise_model.h"
#include "soc.h"

namespace aoe::sim {

// Throws invalid_argument, naming the op, for inputs that disagree with x's channels.
ElementwiseProblem batch_norm_problem(const sdk::OpTask& task, const Soc& soc);

}  // namespace aoe::sim
