// `aoe-host plugins`: what was found, what it provides, and what was refused.
#pragma once

#include <ostream>

namespace aoe::host {

class PluginRegistry;

void print_plugins(const PluginRegistry& registry, std::ostream& out);

}  // namespace aoe::host
