// Every setting aoe-host knows: its key, environment variable, type and help.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace aoe::host {

enum class OptionType { text, path, integer, boolean, path_list };

struct OptionSpec {
  std::string key;          // --key on the command line, key: in the YAML file
  std::string env;          // environment variable, "" when none
  OptionType type;
  std::string default_value;
  std::string help;
  std::vector<std::string> choices;  // allowed values, when the set is closed
};

// In the order --help lists them.
const std::vector<OptionSpec>& option_specs();
const OptionSpec* find_option(const std::string& key);

// AOE's options that aoe-host does not take (yet), with why and what to do
// instead, so an AOE user's flag is refused by name rather than as unknown.
const std::string* aoe_option_not_supported(const std::string& key);

}  // namespace aoe::host
