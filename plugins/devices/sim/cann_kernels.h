// CANN's kernels as the simulator models them: one table from a profiled
// kernel's op type (CANN's names, fusions included: FusionOp_Conv2D_...,
// FusedMulApplyMomentum, BNTrainingUpdateGrad, ...) to the op tasks whose
// modelled times add up to it. Where a training step has the kernel
// (docs/training.md), that is the step's one task, its op type, input order
// and logical shapes, so a row is timed by the model a derived task is. The
// profiled tensors give the shapes: NC1HWC0 feature maps become NCHW with
// C = C1 x C0, Fractal Z weights the conv's OIHW, FRACTAL_NZ matrices rows x
// columns, per-channel statistics one value per channel.
#pragma once

#include <string>
#include <vector>

#include "aoe/sdk/op_task.h"
#include "kernel_profile.h"

namespace aoe::sim {

struct ModelledKernel {
  std::vector<sdk::OpTask> tasks;  // empty: not modelled
  std::string uncovered;           // why, when not modelled
};

// Never throws for an op type the table lacks or a row whose tensors do not
// fit its type: that kernel is uncovered, saying why.
ModelledKernel modelled_kernel(const ProfiledKernel& kernel);

// The op types the table holds.
std::vector<std::string> modelled_cann_types();

}  // namespace aoe::sim
