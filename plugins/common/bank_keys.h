// The bank keys the modes write and read, built in one place: SGAT reads the
// operator bank OPAT writes, and OPAT the subgraph bank SGAT writes.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "aoe/sdk/op_task.h"
#include "aoe/sdk/subgraph_task.h"

namespace aoe::modes {

// What two ops share when a tiling of one can carry over to the other: the
// signature (OpTask::signature() as JSON) with each shape cut to its rank,
// hashed. Ops of one family differ in their dims alone. OPAT's warm start
// asks the bank for its op's family, so the bank's index opens only those.
inline std::string op_family(const nlohmann::json& signature) {
  nlohmann::json family = signature;
  for (const char* side : {"inputs", "outputs"})
    if (family.contains(side) && family[side].is_array())
      for (auto& tensor : family[side])
        if (tensor.is_object() && tensor.contains("shape")) {
          tensor["rank"] = tensor["shape"].is_array() ? tensor["shape"].size() : 0;
          tensor.erase("shape");
        }
  return aoe::sdk::fnv1a_hex(family.dump());
}

inline std::string op_family(const aoe::sdk::OpTask& op) { return op_family(nlohmann::json::parse(op.signature())); }

// An op's dims, its inputs' then its outputs' in order: the bank's index holds
// them, so it can rank a family's entries by shape distance (Host::bank_nearest)
// without opening them. Within a family, positions line up dim for dim.
inline std::vector<int64_t> op_dims(const nlohmann::json& signature) {
  std::vector<int64_t> dims;
  for (const char* side : {"inputs", "outputs"}) {
    if (!signature.contains(side) || !signature[side].is_array()) continue;
    for (const auto& tensor : signature[side]) {
      if (!tensor.is_object() || !tensor.contains("shape") || !tensor["shape"].is_array()) continue;
      for (const auto& dim : tensor["shape"]) dims.push_back(dim.is_number_integer() ? dim.get<int64_t>() : -1);
    }
  }
  return dims;
}

inline std::vector<int64_t> op_dims(const aoe::sdk::OpTask& op) { return op_dims(nlohmann::json::parse(op.signature())); }

inline nlohmann::json op_bank_key(const aoe::sdk::OpTask& op, const std::string& soc_version,
                                  const std::string& space_version) {
  return {{"kind", "op"},
          {"op_type", op.op_type},
          {"family", op_family(op)},
          {"dims", op_dims(op)},
          {"soc_version", soc_version},
          {"space_version", space_version},
          {"signature", op.signature()},
          {"hash", op.hash()}};
}

inline nlohmann::json graph_bank_key(const aoe::sdk::SubgraphTask& subgraph, const std::string& soc_version,
                                     const std::string& space_version) {
  return {{"kind", "graph"},
          {"soc_version", soc_version},
          {"space_version", space_version},
          {"signature", subgraph.signature()},
          {"hash", subgraph.hash()}};
}

}  // namespace aoe::modes
