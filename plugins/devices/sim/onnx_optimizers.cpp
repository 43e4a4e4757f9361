#include "onnx_optimizers.h"

#include <vector>

#include "aoe/sdk/error.h"
#include "elementwise_model.h"
#include "kernel_sequence.h"
#include "training_vector_ops.h"
#include "vector_model.h"

namespace aoe::sim {
namespace {

using sdk::OpTask;
using sdk::TensorDesc;

// An ONNX optimizer: its per-weight tensors after R and T, in the order its
// inputs group them (X..., G..., then its state), and the CANN kernel that
// updates one weight, whose inputs `order` picks from a weight's group.
struct Optimizer {
  const char* op_type;
  std::vector<const char*> tensors;
  const char* kernel;
  std::vector<size_t> order;
};

const std::vector<Optimizer>& optimizers() {
  static const std::vector<Optimizer> table = {
      {"Momentum", {"X", "G", "V"}, "ApplyMomentum", {0, 2, 1}},
      {"Adagrad", {"X", "G", "H"}, "ApplyAdagrad", {0, 2, 1}},
      {"Adam", {"X", "G", "V", "H"}, "ApplyAdam", {0, 2, 3, 1}},
  };
  return table;
}

const Optimizer* find_optimizer(const std::string& op_type) {
  for (const auto& o : optimizers())
    if (op_type == o.op_type) return &o;
  return nullptr;
}

// Instructions per element ONNX's formulas add to CANN's kernel [L]: weight
// decay (norm_coefficient) a mul and an add, as a fused decay counts it
// (training_vector_ops.cpp); Momentum's beta a mul and Nesterov's look-ahead
// a mul and an add; Adagrad's epsilon an add; Adam's decay after the step
// (norm_coefficient_post) a mul and a sub.
int extra_passes(const OpTask& task) {
  int extra = attr_float(task.attrs, "norm_coefficient", 0) != 0 ? 2 : 0;
  if (task.op_type == "Momentum") {
    if (attr_float(task.attrs, "beta", 1) != 1) extra += 1;
    const auto mode = task.attrs.value("mode", std::string("standard"));
    if (mode == "nesterov") extra += 2;
    else if (mode != "standard") malformed(task, "mode '" + mode + "' is neither standard nor nesterov");
  } else if (task.op_type == "Adagrad") {
    extra += 1;
  } else if (attr_float(task.attrs, "norm_coefficient_post", 0) != 0) {
    extra += 2;
  }
  return extra;
}

}  // namespace

bool is_onnx_optimizer(const std::string& op_type) { return find_optimizer(op_type) != nullptr; }

std::unique_ptr<OpModel> onnx_optimizer_model(const Soc& soc, const OpTask& task) {
  const Optimizer* o = find_optimizer(task.op_type);
  if (!o) not_modelled(soc, task.op_type);
  require_unfused(task, soc);
  const size_t group = o->tensors.size();
  if (task.inputs.size() < 2 + group || (task.inputs.size() - 2) % group != 0)
    malformed(task, "takes R, T and " + std::to_string(group) + " tensors per weight, has " +
                        std::to_string(task.inputs.size()) + " inputs");
  const size_t weights = (task.inputs.size() - 2) / group;
  if (!task.outputs.empty() && task.outputs.size() != weights * (group - 1))
    malformed(task, "updates " + std::to_string(weights) + " weight(s) into " + std::to_string(weights * (group - 1)) +
                        " outputs, has " + std::to_string(task.outputs.size()));
  require_known_inputs(task.inputs, task.inputs.size(), task.op_type);
  const int extra = extra_passes(task);

  std::vector<KernelSequence::Part> parts;
  for (size_t w = 0; w < weights; ++w) {
    // A weight's group: its X, G and state, each `weights` inputs apart.
    std::vector<TensorDesc> tensors;
    for (size_t i = 0; i < group; ++i) tensors.push_back(task.inputs[2 + i * weights + w]);
    for (const auto& t : tensors) {
      if (t.dtype != sdk::DType::f32 && t.dtype != sdk::DType::f16)
        throw sdk::Error(sdk::StatusCode::unsupported, soc.target + " simulator models " + task.op_type +
                                                           " on float16 and float32, not " + sdk::to_string(t.dtype));
      if (t.shape != tensors[0].shape)
        malformed(task, std::string(o->tensors[&t - tensors.data()]) + " of weight " + std::to_string(w) + " is " +
                            shape_text(t.shape) + ", not " + shape_text(tensors[0].shape) + " as its X");
    }
    OpTask update;
    update.name = task.name;
    update.op_type = o->kernel;
    for (size_t i : o->order) update.inputs.push_back(tensors[i]);
    for (size_t i = 0; i < group; ++i)
      if (i != 1) update.outputs.push_back(tensors[i]);  // X and the state, updated; G is read only
    auto problem = training_vector_problem(update, soc);
    problem.simple_passes += extra;
    parts.push_back({w == 0 ? std::string() : "w" + std::to_string(w) + "_",
                     std::make_unique<ElementwiseModel>(soc, std::move(problem))});
  }
  return std::make_unique<KernelSequence>(soc, std::move(parts));
}

}  // namespace aoe::sim
