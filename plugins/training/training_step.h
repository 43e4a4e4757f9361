// The kernels of one training step, derived from a forward graph: the
// forward kernels (BatchNormalization as BNTrainingReduce and
// BNTrainingUpdate), a softmax cross-entropy loss at the first output, the
// backward kernels of each op a gradient flows through, and the optimizer's
// update of every trainable weight (docs/training.md).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "aoe/sdk/graph.h"
#include "optimizer_kernels.h"

namespace aoe::training {

struct StepOptions {
  Optimizer optimizer = Optimizer::momentum;
  bool mixed = true;  // mixed precision (float16 activations); else float32 throughout
};

// From a job's options (optimizer, training_precision) and the device's
// describe(); throws naming the option where a value is not one of its choices.
StepOptions step_options(const nlohmann::json& job_options, const nlohmann::json& described);

struct TrainingStep {
  aoe::sdk::Graph graph;  // every kernel of the step as a node, in the order they run
  // The forward node each kernel comes from, by kernel name (a forward kernel: itself).
  std::map<std::string, std::string> forward_of;
  // The model's nodes behind a recognised forward node (LayerNorm, GELU), by its name.
  std::map<std::string, std::vector<std::string>> members;
  std::vector<std::string> weights;  // the trainable weights, in the order the forward reads them
  // Where the phases start in graph.nodes: the loss after the forward, the
  // backward after the loss, then the optimizer's updates, which read the
  // gradients once all are final.
  size_t loss_begin = 0;
  size_t backward_begin = 0;
  size_t updates_begin = 0;
  std::map<std::string, std::string> gradient_of;  // each updated weight's gradient tensor
};

// Throws aoe::sdk::Error (invalid_argument) where a gradient reaches an op
// that no rule covers, naming the op type, the node and the supported types.
TrainingStep derive_training_step(const aoe::sdk::Graph& model, const StepOptions& options);

}  // namespace aoe::training
