// The searcher plugins of a directory, opened as aoe-host opens them (query,
// check the SDK version, init with a host services table), for benchmarks
// that drive searchers without the host.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "aoe/abi/aoe.h"
#include "aoe/sdk/searcher_client.h"

// What a benchmark, as host, makes of a status; opaque to the plugins.
struct aoe_status {
  int32_t code;
  std::string message;
};

namespace aoe::bench {

struct SearcherPlugin {
  std::string name;
  std::string library;
  aoe_plugin_create_fn create_fn;
  const aoe_searcher_vtable* vtable;

  std::unique_ptr<sdk::SearcherClient> create() const;
};

// Every searcher of every library in `dir`, libraries in name order; those
// that cannot load are skipped with a line on stderr. The libraries stay open
// until the program ends.
std::vector<SearcherPlugin> load_searchers(const std::filesystem::path& dir);

}  // namespace aoe::bench
