#include "training_reductions.h"

#include <vector>

#include "aoe/sdk/error.h"
#include "on_chip.h"
#include "vector_model.h"

namespace aoe::sim {
namespace {

using sdk::OpTask;

struct Reduction {
  const char* op_type;
  std::vector<const char*> inputs;
  size_t outputs;
  size_t stacked;  // inputs of the map's size read together
  double passes;   // vector passes per element of the stacked maps before the sum
  bool fp32;       // narrower maps are cast to float32 first (a pass more), the sum then at fp32's lanes
};

// Batch norm's reductions as TBE's sources compute them, in float32 [M]:
// BNTrainingReduce squares x and sums both (2 passes besides one sum);
// BNTrainingUpdateGrad forms (x - mean) * invstd * dy, with mean and invstd
// each broadcast over the tile first (C0 = 16 floats, 64 B, is no single
// 32 B block a repeat could reread), and sums it and dy: 3 + 2 passes a
// position besides one sum, 2.5 per element of the two stacked maps. The
// others keep their input's dtype.
const std::vector<Reduction>& reductions() {
  static const std::vector<Reduction> table = {
      {"BNTrainingReduce", {"x"}, 2, 1, 2, true},
      {"BNTrainingUpdateGrad", {"dy", "x", "batch_mean", "batch_invstd"}, 2, 2, 2.5, true},
      {"BiasAddGrad", {"dy"}, 1, 1, 0, false},
      {"LayerNormBetaGammaBackpropV2", {"dy", "x", "mean", "invstd"}, 2, 2, 0, false},
      {"SquareSumV1", {"t"}, 1, 1, 1, false},
  };
  return table;
}

const Reduction* find_reduction(const std::string& op_type) {
  for (const auto& r : reductions())
    if (op_type == r.op_type) return &r;
  return nullptr;
}


}  // namespace

bool is_training_reduction(const std::string& op_type) { return find_reduction(op_type) != nullptr; }

ReduceProblem training_reduce_problem(const OpTask& task, const Soc& soc) {
  auto bad = [&](const std::string& why) { malformed(task, why); };
  const Reduction* r = find_reduction(task.op_type);
  if (!r) not_modelled(soc, task.op_type);
  require_signature(task, soc, r->inputs, r->outputs);
  require_known_inputs(task.inputs, task.inputs.size(), task.op_type);
  const auto& x = task.inputs[0].shape;
  const auto rank = static_cast<int64_t>(x.size());
  const std::string per_channel(task.op_type.rfind("BN", 0) == 0 ? "BN" : "");
  std::vector<int64_t> axes;
  int64_t kept_dim = -1;  // the axis kept, or -1 when everything is summed
  if (!per_channel.empty()) {
    if (rank != 4) bad(std::string(r->inputs[0]) + " must be an N x C x H x W map, is " + shape_text(x));
    kept_dim = 1;
  } else if (task.op_type == "BiasAddGrad") {
    if (rank < 2) bad("dy must have a batch axis and a kept one, is " + shape_text(x));
    int64_t axis = attr_int(task.attrs, "axis", 1);
    if (axis < -rank || axis >= rank) bad("axis " + std::to_string(axis) + " is out of range for dy of " + shape_text(x));
    kept_dim = axis < 0 ? axis + rank : axis;
  } else if (task.op_type == "LayerNormBetaGammaBackpropV2") {
    if (rank < 2) bad("dy must be rows x D, is " + shape_text(x));
    kept_dim = rank - 1;
  } else if (rank == 0) {
    bad(std::string(r->inputs[0]) + " is a scalar: nothing to sum");
  }
  for (int64_t a = 0; a < rank; ++a)
    if (a != kept_dim) axes.push_back(a);
  // The second map of a stacked pair matches the first; the statistics hold
  // one value per channel (per row for a layer norm's).
  for (size_t i = 1; i < task.inputs.size(); ++i) {
    const auto& t = task.inputs[i];
    if (i < r->stacked) {
      if (t.shape != x) bad(std::string(r->inputs[i]) + " is " + shape_text(t.shape) + ", not " + shape_text(x) + " as " + r->inputs[0]);
    } else if (!per_channel.empty()) {
      if (t.elements() != x[1]) bad(std::string(r->inputs[i]) + " is " + shape_text(t.shape) + ", not one value per channel (" + std::to_string(x[1]) + ")");
    } else if (t.elements() != task.inputs[0].elements() / x.back()) {
      bad(std::string(r->inputs[i]) + " is " + shape_text(t.shape) + ", not one value per row");
    }
  }
  OpTask sum;
  sum.name = task.name;
  sum.op_type = "ReduceSum";
  sum.inputs = {task.inputs[0]};
  sum.inputs[0].shape[0] *= static_cast<int64_t>(r->stacked);
  sum.inputs[0].format = "ND";
  if (!axes.empty() && axes.front() != 0 && r->stacked > 1) bad("the stacked maps must be summed along their first axis");
  sum.attrs = {{"axes", axes}, {"keepdims", 1}};
  if (OnChip::of(task).input(0)) sum.attrs["on_chip_inputs"] = {0};
  auto p = reduce_problem(sum, soc);
  p.map_passes = r->passes;
  if (r->fp32 && p.bytes < 4) {
    p.compute_bytes = 4;
    p.map_passes += 1;  // the cast
  }
  // BNTrainingUpdateGrad splits N x H x W over every core, each adding its
  // per-channel partial sums atomically [M: 52 of the 53 in ResNet-50's
  // profile run 30 blocks on 30 cores, whatever their channels, 128 to 2048].
  p.split_reduced = task.op_type == "BNTrainingUpdateGrad";
  return p;
}

}  // namespace aoe::sim
