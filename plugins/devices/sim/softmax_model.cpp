#include "softmax_model.h"

#include "aoe/sdk/error.h"
#include "on_chip.h"
#include "vector_model.h"

namespace aoe::sim {

// max-reduce, x - max, exp, sum-reduce, times 1/sum. Split, pass one keeps
// a running max and sum (rescaling the sum: an exp per element, a sub, a
// mul) and pass two recomputes exp(x - max) / sum. Hardmax is its hard
// sibling: the max-reduce, then a compare with it and a select of 1 or 0.
NormProblem softmax_problem(const sdk::OpTask& task, const Soc& soc) {
  const bool hard = task.op_type == "Hardmax";
  if (task.op_type != "Softmax" && task.op_type != "LogSoftmax" && !hard)  // LogSoftmax: the same passes; the last subtracts a log instead of dividing
    not_modelled(soc, task.op_type);
  require_unfused(task, soc);
  require_known_inputs(task.inputs, 1, task.op_type);
  const auto& shape = task.inputs[0].shape;
  const auto axis = static_cast<int64_t>(axis_of(task, attr_int(task.attrs, "axis", -1), shape.size()));
  NormProblem p;
  p.op_type = hard ? "Hardmax" : "Softmax";
  p.rows_along(shape, axis);
  p.in_bytes = sdk::dtype_bytes(task.inputs[0].dtype);
  p.out_bytes = task.outputs.empty() ? p.in_bytes : sdk::dtype_bytes(task.outputs[0].dtype);
  if (p.in_bytes == 0 || p.out_bytes == 0)
    throw sdk::Error(sdk::StatusCode::invalid_argument, task.op_type + " has a tensor of undefined dtype");
  p.simple_passes = 2;
  p.transcendental_passes = hard ? 0 : 1;
  p.row_reduces = hard ? 1 : 2;
  p.split_simple_passes = hard ? 0 : 2;
  p.split_transcendental_passes = hard ? 0 : 1;
  return with_stream_on_chip(task, p);
}

// SoftmaxCrossEntropyLoss: a log-softmax along the classes (axis 1) of each
// sample and position, then the label's value picked (a compare and a
// select); NegativeLogLikelihoodLoss picks from log-probabilities it is
// given, a select and a sum along the row. Each row reads its label and
// leaves its loss (two values a row); the full rows go back only as
// SoftmaxCrossEntropyLoss's optional log_prob output. The mean or sum over
// the rows' losses is a value a row, left out.
NormProblem loss_problem(const sdk::OpTask& task, const Soc& soc) {
  const bool softmax = task.op_type == "SoftmaxCrossEntropyLoss";
  if (!softmax && task.op_type != "NegativeLogLikelihoodLoss")
    not_modelled(soc, task.op_type);
  require_unfused(task, soc);
  require_known_inputs(task.inputs, 2, task.op_type);
  const auto& shape = task.inputs[0].shape;
  if (shape.size() < 2)
    throw sdk::Error(sdk::StatusCode::invalid_argument, task.op_type + " takes N x C (x d...) scores, got rank " +
                                                            std::to_string(shape.size()));
  NormProblem p;
  p.op_type = task.op_type;
  p.rows_along(shape, 1);
  p.in_bytes = sdk::dtype_bytes(task.inputs[0].dtype);
  if (p.in_bytes == 0) throw sdk::Error(sdk::StatusCode::invalid_argument, task.op_type + " has scores of undefined dtype");
  p.out_bytes = softmax && task.outputs.size() > 1 ? p.in_bytes : 0;
  p.row_values = 2;
  p.simple_passes = softmax ? 3 : 1;
  p.transcendental_passes = softmax ? 1 : 0;
  p.row_reduces = softmax ? 3 : 1;
  p.split_simple_passes = softmax ? 2 : 0;
  p.split_transcendental_passes = softmax ? 1 : 0;
  return with_stream_on_chip(task, p);
}

}  // namespace aoe::sim
