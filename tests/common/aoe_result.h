// Reads AOE's result file shape, [{"basic": {...}}, {"OPAT": {...}}], as one
// object of its sections by name, for tests and benches that look inside.
#pragma once

#include <nlohmann/json.hpp>

#include <stdexcept>

namespace aoe::test {

inline nlohmann::json result_sections(const nlohmann::json& file) {
  if (!file.is_array()) throw std::runtime_error("a result file is a list of sections: " + file.dump().substr(0, 80));
  nlohmann::json out = nlohmann::json::object();
  for (const auto& section : file)
    for (const auto& [name, content] : section.items()) out[name] = content;
  return out;
}

}  // namespace aoe::test
