// The op types a device runs fused after an anchor, as its describe() says.
#pragma once

#include <nlohmann/json.hpp>

#include <set>
#include <string>

namespace aoe::modes {

inline std::set<std::string> fused_op_types(const nlohmann::json& described) {
  std::set<std::string> out;
  if (described.contains("fused_op_types") && described["fused_op_types"].is_array())
    for (const auto& op : described["fused_op_types"])
      if (op.is_string()) out.insert(op.get<std::string>());
  return out;
}

}  // namespace aoe::modes
