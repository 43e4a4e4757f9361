#include "op_configs.h"

#include <optional>

#include "aoe/sdk/fusion.h"
#include "bank_keys.h"

namespace aoe::sgat {

using nlohmann::json;

namespace {

// Anchor -> tiling, for the kernels of the subgraph under `decisions`.
json tilings(const aoe::sdk::Job& job, const aoe::sdk::SubgraphTask& subgraph, const std::set<std::string>& fusable,
             const std::string& soc_version, const aoe::sdk::SubgraphDecisions& decisions) {
  json out = json::object();
  const auto may_fuse = [&](const aoe::sdk::Node& n) { return !decisions.unfused.count(n.name); };
  for (const auto& kernel : aoe::sdk::fuse(subgraph.graph, fusable, {}, may_fuse)) {
    const auto op = aoe::sdk::under(kernel.task, decisions);
    std::unique_ptr<aoe::sdk::TaskClient> task;
    try {
      task = job.device().prepare(op);
    } catch (const aoe::sdk::Error&) {
      continue;  // no kernel for it (a view op) or none the device runs: nothing tuned
    }
    const json key = aoe::modes::op_bank_key(op, soc_version, task->space().version);
    std::optional<json> entry;
    try {
      entry = job.host().bank_lookup(key);
    } catch (const aoe::sdk::Error& e) {
      job.host().warn(std::string(e.what()) + "; its tiling is left out of " + subgraph.name);
    }
    if (!entry) continue;
    const auto values = entry->value("config_values", aoe::sdk::Config{});
    if (!task->space().in_domain(values)) continue;
    json by_knob = json::object();
    for (size_t i = 0; i < values.size(); ++i) by_knob[task->space().knobs[i].name] = values[i];
    out[kernel.node_names.front()] = by_knob;
  }
  return out;
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
