// Makes searcher instances on a tuning mode's demand: the searcher the user
// chose for the task's op class (cube or vector), else the default.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "aoe/abi/tuning_mode.h"
#include "aoe/sdk/host.h"

namespace aoe::host {

class PluginRegistry;

// The user's --searcher per op class, "" where the default applies. Takes one
// name for every task, "cube=ga,vector=rl" (either part may be left out), or
// AOE's list "RL,GA": GA tunes cube ops and RL vector ops, as in Auto Tune.
// Throws aoe::sdk::Error(invalid_argument) naming what it cannot read.
struct SearcherChoice {
  std::string cube, vector;
};
SearcherChoice parse_searcher_choice(const std::string& text);

// The searchers used where the user names none, by the device's target
// (its describe()'s soc_version): the Ascend SoCs have their own.
SearcherChoice default_searchers(const std::string& soc_version);

class SearcherFactory {
 public:
  // `searcher_options` (--searcher_options) is JSON: one object of
  // hyperparameters for every searcher used, or objects keyed by searcher
  // name ({"ga": {...}, "rl": {...}}). Each searcher chosen is made once here
  // with its options, so an unknown key fails before any tuning.
  // Throws ExitError(exit_usage) for options that are not a JSON object or
  // that a searcher refuses; aoe::sdk::Error: invalid_argument for an
  // unreadable choice, not_found for a searcher no plugin provides.
  SearcherFactory(const PluginRegistry& registry, aoe::sdk::Host host, const std::string& user_choice,
                  const std::string& soc_version, const std::string& searcher_options = "");
  SearcherFactory(const SearcherFactory&) = delete;  // its table points at it
  SearcherFactory& operator=(const SearcherFactory&) = delete;
  const aoe_searcher_factory* table() const { return &table_; }
  // {"cube": name, "vector": name}: what each op class is tuned with.
  nlohmann::json routing() const { return {{"cube", choice_.cube}, {"vector", choice_.vector}}; }

 private:
  aoe_searcher_ref create(const char* name, const char* op_type) const;
  std::string options_for(const std::string& searcher) const;

  const PluginRegistry& registry_;
  aoe::sdk::Host host_;
  SearcherChoice choice_;  // resolved: every class named, as the plugins spell it
  nlohmann::json options_ = nlohmann::json::object();
  bool options_by_searcher_ = false;  // options_ keyed by searcher name
  aoe_searcher_factory table_;
};

}  // namespace aoe::host
