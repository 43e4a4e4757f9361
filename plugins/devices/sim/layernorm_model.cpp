#include "layernorm_model.h"

#include <algorithm>
#include <string>

#include "aoe/sdk/error.h"
#include "on_chip.h"
#include "vector_model.h"

namespace aoe::sim {

namespace {

// mean (a reduce), x - mean, square, variance (a reduce), the per-row
// rsqrt, times it, times gamma, plus beta. Split, pass one only folds sum
// and sum of squares (a mul); pass two normalises. `resident` scale and
// bias elements stay in UB.
NormProblem row_norm(const sdk::OpTask& task, int64_t rows, int64_t row, int64_t resident) {
  NormProblem p;
  p.op_type = task.op_type;
  p.rows = rows;
  p.row = row;
  p.in_bytes = sdk::dtype_bytes(task.inputs[0].dtype);
  p.out_bytes = task.outputs.empty() ? p.in_bytes : sdk::dtype_bytes(task.outputs[0].dtype);
  if (p.in_bytes == 0 || p.out_bytes == 0)
    throw sdk::Error(sdk::StatusCode::invalid_argument, task.op_type + " has a tensor of undefined dtype");
  p.simple_passes = 5;
  p.row_reduces = 2;
  p.split_simple_passes = 1;
  p.resident_elements = resident;
  return with_stream_on_chip(task, p);
}

}  // namespace

NormProblem layernorm_problem(const sdk::OpTask& task, const Soc& soc) {
  if (task.op_type != "LayerNormalization")
    not_modelled(soc, task.op_type);
  require_unfused(task, soc);
  require_known_inputs(task.inputs, 1, "LayerNormalization");
  const auto& shape = task.inputs[0].shape;
  const auto axis = static_cast<int64_t>(axis_of(task, attr_int(task.attrs, "axis", -1), shape.size()));
  int64_t rows = 1, row = 1;
  for (int64_t i = 0; i < static_cast<int64_t>(shape.size()); ++i) (i < axis ? rows : row) *= shape[i];
  // Scale and bias, each one row.
  const int64_t rows_of_params = std::min<int64_t>(static_cast<int64_t>(task.inputs.size()) - 1, 2);
  return row_norm(task, rows, row, rows_of_params * row);
}

// InstanceNormalization normalises each channel of each image over its
// spatial dims; GroupNormalization each group of num_groups channels. Both
// are rows of the input as it lies (N x C x spatial), as CANN's
// InstanceNorm and GroupNorm kernels take them, with a scale and a bias per
// channel (per group for GroupNormalization before opset 21).
NormProblem channel_norm_problem(const sdk::OpTask& task, const Soc& soc) {
  const bool group = task.op_type == "GroupNormalization";
  if (!group && task.op_type != "InstanceNormalization")
    not_modelled(soc, task.op_type);
  require_unfused(task, soc);
  require_known_inputs(task.inputs, 3, task.op_type);
  const auto& shape = task.inputs[0].shape;
  if (shape.size() < 3)
    throw sdk::Error(sdk::StatusCode::invalid_argument, task.op_type + " takes an N x C x spatial input, got rank " +
                                                            std::to_string(shape.size()));
  const int64_t n = shape[0], c = shape[1];
  int64_t spatial = 1;
  for (size_t i = 2; i < shape.size(); ++i) spatial *= shape[i];
  const int64_t groups = group ? attr_int(task.attrs, "num_groups", 0) : c;
  if (groups < 1 || c % groups != 0)
    throw sdk::Error(sdk::StatusCode::invalid_argument, task.op_type + " needs num_groups dividing the " + std::to_string(c) +
                                                            " channels, got " + std::to_string(groups));
  return row_norm(task, n * groups, c / groups * spatial, task.inputs[1].elements() + task.inputs[2].elements());
}

}  // namespace aoe::sim
