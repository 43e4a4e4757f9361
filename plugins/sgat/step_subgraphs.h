// --training: the subgraphs of the training step derived from the model
// (docs/training.md). Each phase (forward, loss, backward, optimizer
// updates) is partitioned as an inference graph is; each node of a subgraph
// is one kernel of the step, fused as the step's rules fuse it and marked so
// the device runs it as it is (aoe/sdk/fusion.h).
#pragma once

#include <nlohmann/json.hpp>

#include <set>
#include <string>
#include <vector>

#include "aoe/sdk/graph.h"
#include "sgat_report.h"

namespace aoe::sgat {

struct StepSubgraphs {
  std::vector<SubgraphGroup> subgraphs;  // one occurrence each, in the order the step runs them
  std::string optimizer;
  bool mixed = true;
  size_t kernels = 0;  // that run: views are none
};

// Throws aoe::sdk::Error (invalid_argument) as derive_training_step() does,
// or where an option names no choice.
StepSubgraphs step_subgraphs(const aoe::sdk::Graph& model, const nlohmann::json& job_options,
                             const nlohmann::json& described, const std::set<std::string>& fusable);

}  // namespace aoe::sgat
