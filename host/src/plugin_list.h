// `aoe-host plugins`: what was found, what it provides, and what was refused.
#pragma once

#include <nlohmann/json.hpp>

#include <ostream>

namespace aoe::host {

class PluginRegistry;

// A table, or with as_json the JSON of plugins_json.
void print_plugins(const PluginRegistry& registry, std::ostream& out, bool as_json = false);

// {"components": [{name, kind, summary, plugin, version, sdk, path}], "refused": [{path, reason}]}
nlohmann::json plugins_json(const PluginRegistry& registry);

}  // namespace aoe::host
