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
};

struct TunedSubgraph {
  SubgraphGroup group;
  SubgraphResult result;
};

// complete: every subgraph was tried. The status follows from it and the
// subgraphs: "tuning incomplete", "tuning failed" or "tuning successful".
nlohmann::json sgat_report(const std::vector<TunedSubgraph>& done, bool complete);

nlohmann::json tuned_plan(const std::string& model, const std::vector<TunedSubgraph>& done);

}  // namespace aoe::sgat
