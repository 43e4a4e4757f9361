// What the frontend tests ask of a loaded graph.
#pragma once

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "aoe/sdk/graph.h"

namespace aoe::host::test {

inline std::vector<std::string> op_types(const sdk::Graph& g) {
  std::vector<std::string> out;
  for (const auto& n : g.nodes) out.push_back(n.op_type);
  return out;
}

inline const sdk::Node& node_named(const sdk::Graph& g, const std::string& name) {
  const auto it = std::find_if(g.nodes.begin(), g.nodes.end(), [&](const sdk::Node& n) { return n.name == name; });
  if (it == g.nodes.end()) throw std::runtime_error("no node " + name);
  return *it;
}

}  // namespace aoe::host::test
