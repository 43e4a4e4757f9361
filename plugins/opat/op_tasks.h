// The op tasks of a model: fused ops with the same signature grouped, so
// each is tuned once.
#pragma once

#include <string>
#include <vector>

#include "aoe/sdk/op_task.h"
#include "aoe/sdk/fusion.h"

namespace aoe::opat {

using aoe::sdk::FusedOp;

struct TaskGroup {
  aoe::sdk::OpTask task;                // named after its first fused op
  std::vector<std::string> node_names;  // every fused op that computes this signature
};

// In order of first appearance: the device says which it can run.
std::vector<TaskGroup> group_tasks(const std::vector<FusedOp>& ops);

}  // namespace aoe::opat
