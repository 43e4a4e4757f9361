#include "batch_norm_model.h"

#include "aoe/sdk/error.h"
#include "aoe/sdk/tensor_size.h"
#include "on_chip.h"
#include "vector_model.h"

namespace aoe::sim {

ElementwiseProblem batch_norm_problem(const sdk::OpTask& task, const Soc& soc) {
  auto bad = [&](const std::string& why) {
    throw sdk::Error(sdk::StatusCode::invalid_argument, "BatchNormalization '" + task.name + "': " + why);
  };
  require_unfused(task, soc);
  if (task.inputs.size() != 5) bad("takes X, scale, B, mean and var, has " + std::to_string(task.inputs.size()) + " inputs");
  require_known_inputs(task.inputs, 5, "BatchNormalization");
  const auto& x = task.inputs[0].shape;
  if (x.size() < 2) bad("X must be N x C x ..., is rank " + std::to_string(x.size()));
  for (size_t i = 1; i < 5; ++i)
    if (task.inputs[i].shape != std::vector<int64_t>{x[1]})
      bad("input " + std::to_string(i) + " must hold one value per channel (" + std::to_string(x[1]) + ")");
  const auto elements = sdk::checked_elements(x);
  if (!elements || *elements == 0) bad("X has no elements or more than a 64-bit count holds");
  ElementwiseProblem p;
  p.elements = *elements;
  p.out_bytes = p.bytes = sdk::dtype_bytes(task.inputs[0].dtype);
  if (p.bytes == 0) bad("X has an undefined dtype");
  // scale, B, mean, var fold to a and b once per launch: two vectors of C in UB.
  const auto on_chip = OnChip::of(task);
  p.streamed_bytes = {p.bytes};
  p.streamed_on_chip = {on_chip.input(0)};
  p.broadcast_elements = {x[1], x[1]};
  p.broadcast_bytes = {p.bytes, p.bytes};
  p.broadcast_on_chip = {false, false};
  p.out_on_chip = on_chip.output(0);
  p.simple_passes = 2;  // vmul, vadd
  if (!task.outputs.empty() && is_fractal(task.outputs[0]) && task.outputs[0].elements() == p.elements)
    p.elements = stored_elements(task.outputs[0]);
  return p;
}

}  // namespace aoe::sim
