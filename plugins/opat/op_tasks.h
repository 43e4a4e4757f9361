// The op tasks of a model: each tunable node as an OpTask, nodes with the
// same signature grouped so each is tuned once.
#pragma once

#include <string>
#include <vector>

#include "aoe/sdk/graph.h"
#include "aoe/sdk/op_task.h"

namespace aoe::opat {

struct TaskGroup {
  aoe::sdk::OpTask task;               // named after its first node
  std::vector<std::string> node_names; // every node that computes this signature
};

aoe::sdk::OpTask task_of(const aoe::sdk::Graph& graph, const aoe::sdk::Node& node);

// Every node, in graph order of first appearance: the device says which it can run.
std::vector<TaskGroup> group_tasks(const aoe::sdk::Graph& graph);

}  // namespace aoe::opat
