#include "op_tasks.h"

#include <map>

namespace aoe::opat {

using aoe::sdk::Graph;
using aoe::sdk::Node;
using aoe::sdk::OpTask;

OpTask task_of(const Graph& graph, const Node& node) {
  OpTask task;
  task.name = node.name;
  task.op_type = node.op_type;
  task.attrs = node.attrs;
  for (const auto& input : node.inputs)
    if (!input.empty()) task.inputs.push_back(graph.tensor(input));
  for (const auto& output : node.outputs)
    if (!output.empty()) task.outputs.push_back(graph.tensor(output));
  return task;
}

std::vector<TaskGroup> group_tasks(const Graph& graph) {
  std::vector<TaskGroup> groups;
  std::map<std::string, size_t> by_signature;
  for (const auto& node : graph.nodes) {
    OpTask task = task_of(graph, node);
    const auto [it, fresh] = by_signature.emplace(task.signature(), groups.size());
    if (fresh) groups.push_back({std::move(task), {}});
    groups[it->second].node_names.push_back(node.name);
  }
  return groups;
}

}  // namespace aoe::opat
