// The bank keys the modes write and read, built in one place: SGAT reads the
// operator bank OPAT writes, and OPAT the subgraph bank SGAT writes.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "aoe/sdk/op_task.h"
#include "aoe/sdk/subgraph_task.h"

namespace aoe::modes {

inline nlohmann::json op_bank_key(const aoe::sdk::OpTask& op, const std::string& soc_version,
                                  const std::string& space_version) {
  return {{"kind", "op"},
          {"op_type", op.op_type},
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
