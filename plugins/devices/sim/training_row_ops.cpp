#include "training_row_ops.h"

#include <vector>

#include "aoe/sdk/error.h"
#include "on_chip.h"
#include "vector_model.h"

namespace aoe::sim {
namespace {

using sdk::OpTask;

// Instructions per element [L]: Softmax's gradient dy * y, the row's sum,
// the subtraction, the product with y (pass one of a split row only the
// first and the sum); the layer norm's data gradient g = dy * gamma,
// x^ = (x - mean) * invstd, g * x^, the two row means, the difference and
// invstd (pass one g, x^ and g * x^); the loss a softmax (max, sub, exp,
// sum, scale) then log p, labels * log p and its sum, p - labels.
// On FRACTAL_NZ rows TBE's layer norm gradient broadcasts four per-row
// values across the row (mean, invstd and the two row sums' terms), each
// 16 lanes at a time. CANN's kernel may write a second map, x^ (its
// res_for_gamma, fp32), which LayerNormBetaGammaBackpropV2 then reads.
struct RowOp {
  const char* op_type;
  std::vector<const char*> inputs;
  size_t outputs;
  int simple, transcendental, reduces;
  int split_simple, split_transcendental;
  int nz_broadcasts;
  bool second_map;
};

const std::vector<RowOp>& row_ops() {
  static const std::vector<RowOp> table = {
      {"SoftmaxGradExt", {"dy", "y"}, 1, 3, 0, 1, 1, 0, 0, false},
      {"LayerNormXBackpropV2", {"dy", "x", "mean", "invstd", "gamma"}, 1, 8, 0, 2, 4, 0, 4, true},
      {"SoftmaxCrossEntropyWithLogits", {"logits", "labels"}, 2, 4, 2, 3, 2, 1, 0, false},
  };
  return table;
}

const RowOp* find_row_op(const std::string& op_type) {
  for (const auto& r : row_ops())
    if (op_type == r.op_type) return &r;
  return nullptr;
}


}  // namespace

bool is_training_row_op(const std::string& op_type) { return find_row_op(op_type) != nullptr; }

NormProblem training_row_problem(const OpTask& task, const Soc& soc) {
  auto bad = [&](const std::string& why) { malformed(task, why); };
  const RowOp* op = find_row_op(task.op_type);
  if (!op) not_modelled(soc, task.op_type);
  const bool second_map = op->second_map && task.outputs.size() == op->outputs + 1;
  require_signature(task, soc, op->inputs, op->outputs + (second_map ? 1 : 0));
  require_known_inputs(task.inputs, task.inputs.size(), task.op_type);
  const auto& shape = task.inputs[0].shape;
  const auto rank = static_cast<int64_t>(shape.size());
  if (rank < 1) bad(std::string(op->inputs[0]) + " is a scalar: it has no rows");
  if (task.op_type == "SoftmaxCrossEntropyWithLogits" && rank != 2) bad("logits must be N x K, is " + shape_text(shape));
  const auto axis = static_cast<int64_t>(axis_of(task, attr_int(task.attrs, "axis", -1), shape.size()));
  if (task.op_type == "LayerNormXBackpropV2" && axis != rank - 1) bad("normalises the last axis only (axis -1)");
  if (task.inputs[1].shape != shape)
    bad(std::string(op->inputs[1]) + " is " + shape_text(task.inputs[1].shape) + ", not " + shape_text(shape) + " as " + op->inputs[0]);

  NormProblem p;
  p.op_type = task.op_type;
  p.rows_along(shape, axis);
  if (task.op_type == "LayerNormXBackpropV2") {
    for (size_t i = 2; i < 4; ++i)
      if (task.inputs[i].elements() != p.rows)
        bad(std::string(op->inputs[i]) + " is " + shape_text(task.inputs[i].shape) + ", not one value per row (" + std::to_string(p.rows) + ")");
    if (task.inputs[4].elements() != p.row)
      bad("gamma is " + shape_text(task.inputs[4].shape) + ", not one value per element of a row (" + std::to_string(p.row) + ")");
    p.resident_elements = p.row;
    p.row_values = 2;
  }
  p.in_streams = 2;
  p.in_bytes = sdk::dtype_bytes(task.inputs[0].dtype);
  const size_t map_out = task.op_type == "SoftmaxCrossEntropyWithLogits" ? 1 : 0;
  p.out_bytes = task.outputs.size() > map_out ? sdk::dtype_bytes(task.outputs[map_out].dtype) : p.in_bytes;
  if (second_map) p.second_out_bytes = sdk::dtype_bytes(task.outputs.back().dtype);
  if (p.in_bytes == 0 || p.out_bytes == 0 || (second_map && p.second_out_bytes == 0)) bad("has a tensor of undefined dtype");
  p.simple_passes = op->simple;
  p.transcendental_passes = op->transcendental;
  p.row_reduces = op->reduces;
  p.split_simple_passes = op->split_simple;
  p.split_transcendental_passes = op->split_transcendental;
  if (task.inputs[0].format == "FRACTAL_NZ") p.lane_broadcasts = op->nz_broadcasts;
  const auto on_chip = OnChip::of(task);
  p.in_on_chip = on_chip.input(0) && on_chip.input(1);
  p.out_on_chip = on_chip.output(map_out);
  return p;
}

}  // namespace aoe::sim
