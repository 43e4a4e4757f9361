#include "op_tasks.h"

#include <map>

namespace aoe::opat {

std::vector<TaskGroup> group_tasks(const std::vector<FusedOp>& ops) {
  std::vector<TaskGroup> groups;
  std::map<std::string, size_t> by_signature;
  for (const auto& op : ops) {
    const auto [it, fresh] = by_signature.emplace(op.task.signature(), groups.size());
    if (fresh) groups.push_back({op.task, {}});
    groups[it->second].node_names.push_back(op.task.name);
  }
  return groups;
}

}  // namespace aoe::opat
