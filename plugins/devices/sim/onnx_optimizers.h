// ONNX's training optimizers (Momentum, Adam and Adagrad, of the domain
// ai.onnx.preview.training) as CANN runs a step's updates: each weight's
// update kernel (ApplyMomentum, ApplyAdam, ApplyAdagrad) on its own tiling,
// the op's weights one after another in one launch.
#pragma once

#include <memory>
#include <string>

#include "aoe/sdk/op_task.h"
#include "op_model.h"
#include "soc.h"

namespace aoe::sim {

bool is_onnx_optimizer(const std::string& op_type);

// Throws invalid_argument naming the op for inputs that are not R, T and
// whole groups of tensors of one shape per weight, or an attribute of the
// wrong kind; unsupported for a dtype the vector unit does not hold.
std::unique_ptr<OpModel> onnx_optimizer_model(const Soc& soc, const sdk::OpTask& task);

}  // namespace aoe::sim
