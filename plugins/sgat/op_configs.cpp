#include "op_configs.h"

#include <optional>

#include "bank_tilings.h"

namespace aoe::sgat {

using nlohmann::json;

namespace {

// Anchor -> tiling, for the kernels of the subgraph under `decisions`.
json tilings(const aoe::sdk::Job& job, const aoe::sdk::SubgraphTask& subgraph, const std::set<std::string>& fusable,
             const std::string& soc_version, const aoe::sdk::SubgraphDecisions& decisions) {
  const auto lookup = [&](const json& key) { return job.host().bank_lookup(key); };
  const auto warn = [&](const std::string& why) { job.host().warn(why + " (in " + subgraph.name + ")"); };
  return aoe::modes::bank_tilings(subgraph.graph, fusable, job.device(), soc_version, decisions, lookup, warn).op_configs;
}

}  // namespace

json op_configs_from_bank(const aoe::sdk::Job& job, const aoe::sdk::SubgraphTask& subgraph,
                          const std::set<std::string>& fusable, const std::string& soc_version,
                          const std::optional<aoe::sdk::SubgraphDecisions>& banked) {
  json out = tilings(job, subgraph, fusable, soc_version, {});
  if (banked) out.update(tilings(job, subgraph, fusable, soc_version, *banked));
  return out;
}

}  // namespace aoe::sgat
