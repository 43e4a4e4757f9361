// LayerNormalization over the trailing axes from `axis`, and InstanceNormalization
// and GroupNormalization over each channel or group, as norm-pattern kernels.
#pragma once

#include "aoe/sdk/op_task.h"
#include "norm_model.h"
#include "soc.h"

namespace aoe::sim {

NormProblem layernorm_problem(const sdk::OpTask& task, const Soc& soc);
// InstanceNormalization and GroupNormalization: rows of channels (or groups) by their spatial dims.
NormProblem channel_norm_problem(const sdk::OpTask& task, const Soc& soc);

}  // namespace aoe::sim
