// --training: the gradient profile from the training step derived from the
// model (docs/training.md), every kernel of it timed on the device. A
// weight's gradient is ready when the backward kernel that finishes it ends;
// the optimizer's updates, which run after the allreduce, are left out.
#pragma once

#include "aoe/sdk/tuning_mode.h"
#include "gradient_profile.h"
#include "profile_source.h"

namespace aoe::gdat {

// Throws aoe::sdk::Error(invalid_argument) where the step cannot be derived
// (an op without a gradient rule, named) or has no weight to update.
GradientProfile profile_from_step(const aoe::sdk::Job& job, const LogLine& log);

}  // namespace aoe::gdat
