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
  // Of a training step: the forward op each of node_names comes from.
  std::vector<std::string> forward_ops;

  std::string forward_op() const { return forward_ops.empty() ? std::string() : forward_ops.front(); }
};

// In order of first appearance: the device says which it can run.
// `forward_ops`, where given, names the forward op of each of `ops`.
std::vector<TaskGroup> group_tasks(const std::vector<FusedOp>& ops, const std::vector<std::string>& forward_ops = {});

}  // namespace aoe::opat
