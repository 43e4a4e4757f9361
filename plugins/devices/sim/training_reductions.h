// The reductions of a training step after CANN's reduce tiling: the
// per-channel statistics of a map (BNTrainingReduce, BNTrainingUpdateGrad),
// a bias's and a layer norm's parameter gradients over the rows
// (BiasAddGrad, LayerNormBetaGammaBackpropV2) and a tensor's square sum
// (SquareSumV1). Two maps of one size summed together (dy and dy * x^) are
// read as one, stacked along the reduced axes.
#pragma once

#include <string>

#include "aoe/sdk/op_task.h"
#include "reduce_model.h"
#include "soc.h"

namespace aoe::sim {

bool is_training_reduction(const std::string& op_type);

// Throws invalid_argument naming the op and the tensor for an input count
// or shape the op does not take.
ReduceProblem training_reduce_problem(const sdk::OpTask& task, const Soc& soc);

}  // namespace aoe::sim
