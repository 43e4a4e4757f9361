#include "op_tasks.h"

#include <map>

namespace aoe::opat {

std::vector<TaskGroup> group_tasks(const std::vector<FusedOp>& ops, const std::vector<std::string>& forward_ops) {
  std::vector<TaskGroup> groups;
  std::map<std::string, size_t> by_signature;
  for (size_t i = 0; i < ops.size(); ++i) {
    const auto& op = ops[i];
    const auto [it, fresh] = by_signature.emplace(op.task.signature(), groups.size());
    if (fresh) groups.push_back({op.task, {}, {}});
    groups[it->second].node_names.push_back(op.task.name);
    if (i < forward_ops.size()) groups[it->second].forward_ops.push_back(forward_ops[i]);
  }
  return groups;
}

}  // namespace aoe::opat
