// The kernels of a training step (docs/training.md) on the simulator: each
// op type mapped onto the model of the kernel it runs as, so it is tuned by
// that model's knobs. The conv gradients and BatchMatMul are cube kernels,
// the rest vector chains, reductions, row kernels or a pool.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "aoe/sdk/op_task.h"
#include "op_model.h"
#include "soc.h"

namespace aoe::sim {

// The model of a training-step task; nullptr for an op type none of them
// is. Throws as op_model() does.
std::unique_ptr<OpModel> training_model(const Soc& soc, const sdk::OpTask& task);

// The followers a training step's fused kernels add to those fused after
// cube kernels (epilogue.h).
std::vector<std::string> training_fused_op_types();

}  // namespace aoe::sim
