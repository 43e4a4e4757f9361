// The bank keys the modes write and read, built in one place: SGAT reads the
// operator bank OPAT writes, and OPAT the subgraph bank SGAT writes.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

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

inline nlohmann::json op_bank_key(const aoe::sdk::OpTask& op, const std::string& soc_version,
                                  const std::string& space_version) {
  return {{"kind", "op"},
          {"op_type", op.op_type},
          {"family", op_family(op)},
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
