// Resolved configuration: command line > environment > YAML file > defaults,
// each value remembering where it came from so errors can say.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace aoe::host {

struct OptionSpec;

struct SettingValue {
  std::string text;
  std::string source;  // "command line", "environment TUNE_BANK_PATH", "config file x.yaml", "default"
};

class Settings {
 public:
  using Environment = std::map<std::string, std::string>;

  // Throws aoe::sdk::Error(invalid_argument) naming the key and its source
  // for an unknown key or a value of the wrong type.
  static Settings resolve(const std::map<std::string, std::string>& command_line, const Environment& environment,
                          const std::filesystem::path& config_file);
  static Environment process_environment();

  bool has(const std::string& key) const;  // set anywhere but the defaults
  std::string text(const std::string& key) const;
  int64_t integer(const std::string& key) const;
  bool boolean(const std::string& key) const;
  std::vector<std::filesystem::path> paths(const std::string& key) const;
  const std::string& source(const std::string& key) const;

 private:
  void set(const std::string& key, const std::string& text, const std::string& source);
  void canonicalize(const OptionSpec& spec);
  std::map<std::string, SettingValue> values_;
};

}  // namespace aoe::host
