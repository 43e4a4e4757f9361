// aoe-host's command line: a subcommand, --key value pairs, --config.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace aoe::host {

struct CommandLine {
  std::string command;  // "tune" (the default), "run", "plugins", "bank", "report", "help", "version"
  std::vector<std::string> arguments;  // what follows `bank` (show [DIR] | merge A B) or `report` (WORKSPACE)
  std::map<std::string, std::string> options;  // key -> value, keys with '_' not '-'
  std::filesystem::path config_file;
};

// Throws aoe::sdk::Error(invalid_argument) for a malformed command line.
CommandLine parse_command_line(const std::vector<std::string>& args);
// loaded: option key -> the names the loaded plugins accept for it (plugin,
// device, searcher); empty when the plugins could not be loaded.
std::string help_text(const std::map<std::string, std::vector<std::string>>& loaded = {});

// Exit codes, as --help documents them.
enum ExitCode : int {
  exit_ok = 0,
  exit_tuning_failed = 1,
  exit_usage = 2,
  exit_plugin = 3,
  exit_model = 4,
  exit_interrupted = 130,
};

}  // namespace aoe::host
