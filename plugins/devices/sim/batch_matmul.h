// BatchMatMul (adj_x1, adj_x2) as the MatMul it computes: an operand whose
// flag is set is read transposed, so the cube tiles, and is tuned, as for
// op(a) x op(b).
#pragma once

#include "aoe/sdk/op_task.h"

namespace aoe::sim {

// The MatMul task, fused ops and their inputs kept. Throws invalid_argument
// naming the op and the operand for ranks below 2 or inner dims that differ.
sdk::OpTask batch_matmul_as_matmul(const sdk::OpTask& task);

}  // namespace aoe::sim
