// The floating-point multiply-adds a planned kernel computes, two flops
// each: a Conv's, a ConvTranspose's, a MatMul's or a Gemm's products
// (attention's two among them). Every other op counts none: its time goes
// to memory, not to FMAs. Counted as computed directly (a Winograd conv
// computes fewer): the model's FLOPs as papers count them. Divided by the
// machine's FMA peak, the least time a direct kernel takes
// (bench/model_runtime_bench prints it beside each run).
#pragma once

#include "subgraph_op.h"

namespace aoe::cpu {

// 0 for a step that is not a kernel, an op above, or whose shapes are not known.
double step_flops(const PlanStep& step);

}  // namespace aoe::cpu
