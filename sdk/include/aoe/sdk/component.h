// SPDX-License-Identifier: Apache-2.0
// What a component's class sees of its plugin: the arguments it is created
// with and the host services the library was given. A class's own sources
// include this; the plugin's registration file includes plugin.h, which
// adds the C tables and entry points.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "aoe/sdk/host.h"

// Hidden: each plugin library keeps its own host table, even when built
// with default visibility (GCC would otherwise unify this function-local
// static across every library loaded).
#pragma GCC visibility push(hidden)
namespace aoe::sdk {

// What a component's constructor may take: its registered name and the user's options.
struct CreateArgs {
  std::string component;
  nlohmann::json options = nlohmann::json::object();
};

// The host services this library was given at init.
inline Host& plugin_host() {
  static Host host;
  return host;
}

}  // namespace aoe::sdk
#pragma GCC visibility pop
