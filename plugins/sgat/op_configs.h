// The operators' own tilings for a subgraph: for each kernel it runs under
// the default strategy, the config the operator bank holds (what OPAT tuned),
// so a strategy is searched jointly with the tilings the model really uses.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <set>
#include <string>

#include "aoe/sdk/subgraph_task.h"
#include "aoe/sdk/tuning_mode.h"

namespace aoe::sgat {

// Anchor node name -> {knob name: value}, for the kernels the bank knows.
// With `banked` (a strategy the subgraph bank holds), the kernels it makes
// come first: OPAT, run after SGAT, tuned those.
nlohmann::json op_configs_from_bank(const aoe::sdk::Job& job, const aoe::sdk::SubgraphTask& subgraph,
                                    const std::set<std::string>& fusable, const std::string& soc_version,
                                    const std::optional<aoe::sdk::SubgraphDecisions>& banked = std::nullopt);

}  // namespace aoe::sgat
