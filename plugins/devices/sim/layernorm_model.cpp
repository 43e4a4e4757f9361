#include "layernorm_model.h"

#include "aoe/sdk/error.h"
#include "on_chip.h"
#include "vector_model.h"

namespace aoe::sim {

// mean (a reduce), x - mean, square, variance (a reduce), the per-row
// rsqrt, times it, times gamma, plus beta. Split, pass one only folds sum
// and sum of squares (a mul); pass two normalises.
NormProblem layernorm_problem(const sdk::OpTask& task, const Soc& soc) {
  if (task.op_type != "LayerNormalization")
    throw sdk::Error(sdk::StatusCode::unsupported, soc.target + " simulator does not model op '" + task.op_type + "' yet");
  if (!task.fused_ops.empty())
    throw sdk::Error(sdk::StatusCode::unsupported, soc.target + " simulator does not model ops fused after LayerNormalization");
  require_known_inputs(task.inputs, 1, "LayerNormalization");
  const auto& shape = task.inputs[0].shape;
  const auto axis = static_cast<int64_t>(axis_of(task, attr_int(task.attrs, "axis", -1), shape.size()));
  NormProblem p;
  p.op_type = "LayerNormalization";
  p.row = 1;
  for (int64_t i = 0; i < static_cast<int64_t>(shape.size()); ++i) (i < axis ? p.rows : p.row) *= shape[i];
  p.in_bytes = sdk::dtype_bytes(task.inputs[0].dtype);
  p.out_bytes = task.outputs.empty() ? p.in_bytes : sdk::dtype_bytes(task.outputs[0].dtype);
  if (p.in_bytes == 0 || p.out_bytes == 0)
    throw sdk::Error(sdk::StatusCode::invalid_argument, "LayerNormalization has a tensor of undefined dtype");
  p.simple_passes = 5;
  p.row_reduces = 2;
  p.split_simple_passes = 1;
  // Scale and bias, each one row.
  for (size_t i = 1; i < task.inputs.size() && i < 3; ++i) p.resident_elements += p.row;
  return with_stream_on_chip(task, p);
}

}  // namespace aoe::sim
