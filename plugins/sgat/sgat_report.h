// SGAT's report in AOE's result-file shape, and the tuned model plan the
// workspace keeps (each subgraph's strategy, for OPAT and for deployment).
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "aoe/sdk/subgraph_task.h"
#include "subgraph_tuner.h"

namespace aoe::sgat {

// One distinct subgraph of the model and where it occurs.
struct SubgraphGroup {
  aoe::sdk::SubgraphTask task;            // the first occurrence
  std::vector<std::string> occurrences;   // every subgraph name with this repo_key
  // Of a training step: "forward", "loss", "backward" or "optimizer", and
  // the forward ops its kernels come from (of the first occurrence).
  std::string phase;
  std::vector<std::string> forward_ops;
};

struct TunedSubgraph {
  SubgraphGroup group;
  SubgraphResult result;
};

// complete: every subgraph was tried. The status follows from it and the
// subgraphs: "tuning incomplete", "tuning failed" or "tuning successful"; a
// subgraph the device does not take is no failure. `training_step`, where
// given, is the step's description; the report adds each phase's figures.
nlohmann::json sgat_report(const std::vector<TunedSubgraph>& done, bool complete,
                           const nlohmann::json& training_step = nullptr);

nlohmann::json tuned_plan(const std::string& model, const std::vector<TunedSubgraph>& done);

}  // namespace aoe::sgat
