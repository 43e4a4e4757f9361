// Where a run's gradient profile comes from: the model's trainable weights
// timed on the device (backward = 2 x forward), with --training the kernels of
// its training step, or the user's --gradient_profile file: complete with
// ready times, or sizes only with the times from the model.
#pragma once

#include <functional>
#include <string>

#include "aoe/sdk/tuning_mode.h"
#include "gradient_profile.h"

namespace aoe::gdat {

// Backward computes the gradient with respect to the layer's input and to its
// weights, each about the forward's work, so about twice the forward time.
inline constexpr double kBackwardFactor = 2.0;

using LogLine = std::function<void(const std::string&)>;

// Throws aoe::sdk::Error(invalid_argument) naming the file or the model.
GradientProfile gradient_profile(const aoe::sdk::Job& job, const LogLine& log);

}  // namespace aoe::gdat
