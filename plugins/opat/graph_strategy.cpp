#include "graph_strategy.h"

#include "bank_keys.h"
#include "partition.h"

namespace aoe::opat {

GraphStrategy GraphStrategy::from_bank(const aoe::sdk::Job& job, const aoe::sdk::Graph& graph,
                                       const std::map<std::string, std::vector<std::string>>& members,
                                       const std::set<std::string>& fusable, const std::string& soc_version) {
  GraphStrategy out;
  if (!job.device().describe().value("subgraphs", false)) return out;
  for (const auto& sg : aoe::graph::partition(graph, fusable)) {
    ++out.seen_;
    std::unique_ptr<aoe::sdk::TaskClient> task;
    try {
      task = job.device().prepare_subgraph(sg);
    } catch (const aoe::sdk::Error&) {
      continue;  // SGAT could not tune it either
    }
    const auto key = aoe::modes::graph_bank_key(sg, soc_version, task->space().version);
    std::optional<nlohmann::json> entry;
    try {
      entry = job.host().bank_lookup(key);
    } catch (const aoe::sdk::Error& e) {
      job.host().warn(std::string(e.what()) + "; " + sg.name + " keeps the default strategy");
    }
    if (!entry || !entry->contains("decisions")) continue;
    for (const auto& node : sg.graph.nodes) {
      out.subgraph_of_node_[node.name] = out.decisions_.size();
      if (auto m = members.find(node.name); m != members.end())
        for (const auto& member : m->second) out.subgraph_of_node_[member] = out.decisions_.size();
    }
    out.decisions_.push_back(entry->at("decisions").get<aoe::sdk::SubgraphDecisions>());
  }
  return out;
}

bool GraphStrategy::may_fuse(const aoe::sdk::Node& node) const {
  auto it = subgraph_of_node_.find(node.name);
  return it == subgraph_of_node_.end() || !decisions_[it->second].unfused.count(node.name);
}

aoe::sdk::OpTask GraphStrategy::apply(const aoe::sdk::FusedOp& op) const {
  auto it = subgraph_of_node_.find(op.node_names.empty() ? std::string() : op.node_names.front());
  if (it == subgraph_of_node_.end()) return op.task;
  return aoe::sdk::under(op.task, decisions_[it->second]);
}

}  // namespace aoe::opat
