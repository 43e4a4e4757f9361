// The operator bank's tilings for the kernels of a graph: for each fused op
// the device runs, the config OPAT banked for it, by knob name, keyed by
// the fused op's anchor node (SubgraphTask::op_configs, GraphRun::op_configs).
// SGAT reads them to search a strategy with the tilings the model uses; the
// model runtime to run them.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "aoe/sdk/device_client.h"
#include "aoe/sdk/fusion.h"
#include "aoe/sdk/subgraph_task.h"
#include "bank_keys.h"

namespace aoe::modes {

struct BankTilings {
  nlohmann::json op_configs = nlohmann::json::object();  // anchor -> {knob: value}
  std::vector<std::string> hits;                         // fused ops' names the bank knows
  std::vector<std::string> misses;                       // those it does not
};

// Looks a bank key up: the entry, or nothing.
using BankLookup = std::function<std::optional<nlohmann::json>(const nlohmann::json& key)>;

// Fused ops the device cannot prepare (views, ops without a kernel) are
// neither hits nor misses. A lookup that throws is warned about and
// counted as a miss.
inline BankTilings bank_tilings(const aoe::sdk::Graph& graph, const std::set<std::string>& fusable,
                                const aoe::sdk::DeviceClient& device, const std::string& soc_version,
                                const aoe::sdk::SubgraphDecisions& decisions, const BankLookup& lookup,
                                const std::function<void(const std::string&)>& warn) {
  BankTilings out;
  const auto may_fuse = [&](const aoe::sdk::Node& n) { return !decisions.unfused.count(n.name); };
  for (const auto& kernel : aoe::sdk::fuse(graph, fusable, {}, may_fuse)) {
    const auto op = aoe::sdk::under(kernel.task, decisions);
    std::unique_ptr<aoe::sdk::TaskClient> task;
    try {
      task = device.prepare(op);
    } catch (const aoe::sdk::Error&) {
      continue;  // no kernel for it (a view op) or none the device runs: nothing tuned
    }
    std::optional<nlohmann::json> entry;
    try {
      entry = lookup(op_bank_key(op, soc_version, task->space().version));
    } catch (const aoe::sdk::Error& e) {
      warn(std::string(e.what()) + "; " + op.name + " runs its default tiling");
    }
    const auto values = entry ? entry->value("config_values", aoe::sdk::Config{}) : aoe::sdk::Config{};
    if (!entry || !task->space().in_domain(values)) {
      out.misses.push_back(op.name);
      continue;
    }
    nlohmann::json by_knob = nlohmann::json::object();
    for (size_t i = 0; i < values.size(); ++i) by_knob[task->space().knobs[i].name] = values[i];
    out.op_configs[kernel.node_names.front()] = by_knob;
    out.hits.push_back(op.name);
  }
  return out;
}

}  // namespace aoe::modes
