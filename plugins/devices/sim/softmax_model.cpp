#include "softmax_model.h"

#include "aoe/sdk/error.h"
#include "on_chip.h"
#include "vector_model.h"

namespace aoe::sim {

// max-reduce, x - max, exp, sum-reduce, times 1/sum. Split, pass one keeps
// a running max and sum (rescaling the sum: an exp per element, a sub, a
// mul) and pass two recomputes exp(x - max) / sum.
NormProblem softmax_problem(const sdk::OpTask& task, const Soc& soc) {
  if (task.op_type != "Softmax" && task.op_type != "LogSoftmax")  // the same passes; the last subtracts a log instead of dividing
    throw sdk::Error(sdk::StatusCode::unsupported, soc.target + " simulator does not model op '" + task.op_type + "' yet");
  if (!task.fused_ops.empty())
    throw sdk::Error(sdk::StatusCode::unsupported, soc.target + " simulator does not model ops fused after Softmax");
  require_known_inputs(task.inputs, 1, "Softmax");
  const auto& shape = task.inputs[0].shape;
  const auto axis = static_cast<int64_t>(axis_of(task, attr_int(task.attrs, "axis", -1), shape.size()));
  NormProblem p;
  p.op_type = "Softmax";
  p.rows_along(shape, axis);
  p.in_bytes = sdk::dtype_bytes(task.inputs[0].dtype);
  p.out_bytes = task.outputs.empty() ? p.in_bytes : sdk::dtype_bytes(task.outputs[0].dtype);
  if (p.in_bytes == 0 || p.out_bytes == 0)
    throw sdk::Error(sdk::StatusCode::invalid_argument, "Softmax has a tensor of undefined dtype");
  p.simple_passes = 2;
  p.transcendental_passes = 1;
  p.row_reduces = 2;
  p.split_simple_passes = 2;
  p.split_transcendental_passes = 1;
  return with_stream_on_chip(task, p);
}

}  // namespace aoe::sim
