// Makes searcher instances on a tuning mode's demand: the user's --searcher,
// else the default for the op.
#pragma once

#include <string>

#include "aoe/abi/tuning_mode.h"
#include "aoe/sdk/host.h"

namespace aoe::host {

class PluginRegistry;

// The searcher used when the user names none.
std::string default_searcher_for(const std::string& op_type);

class SearcherFactory {
 public:
  SearcherFactory(const PluginRegistry& registry, aoe::sdk::Host host, std::string user_choice);
  const aoe_searcher_factory* table() const { return &table_; }
  // Fails early, before any tuning, when the user's choice does not exist.
  void check_user_choice() const;

 private:
  aoe_searcher_ref create(const char* name, const char* op_type) const;

  const PluginRegistry& registry_;
  aoe::sdk::Host host_;
  std::string user_choice_;
  aoe_searcher_factory table_;
};

}  // namespace aoe::host
