// Every setting aoe-host knows: its key, environment variable, type and help.
#pragma once

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

}  // namespace aoe::host
