// Whether an op's tensors fit the SoC's global memory (HBM), where they all
// lie while it runs: an op that cannot be loaded has no time to model.
#pragma once

#include "aoe/sdk/op_task.h"
#include "soc.h"

namespace aoe::sim {

// Throws sdk::Error(invalid_argument) naming the op, its bytes and the SoC's
// when its inputs and outputs together exceed soc.hbm_bytes (0: not known,
// nothing refused). Tensors of unknown shape are not counted.
void require_fits_memory(const Soc& soc, const sdk::OpTask& task);

}  // namespace aoe::sim
