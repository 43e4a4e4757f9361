// A training step's kernels as a profile of the chip lists them: by CANN's
// op type, fused kernels by their FusionOp_ names, with counts.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "step_fusion.h"

namespace aoe::training {

// The kernel's name in a CANN profile: the fusion's name where a rule fused
// it; else its op type as CANN spells it (Conv: Conv2D, Gemm: MatMul, a
// BatchMatMul of two matrices: MatMul, ...).
std::string cann_kernel_name(const StepKernel& kernel);
// A view (Reshape and the like): no kernel runs for it.
bool runs_no_kernel(const StepKernel& kernel);
// Kernels that run, by CANN name.
std::map<std::string, size_t> kernel_counts(const std::vector<StepKernel>& kernels);
// The followers of every rule: the step fused as CANN fuses it on an Ascend SoC.
std::set<std::string> every_follower();

}  // namespace aoe::training
