#include "settings.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "aoe/sdk/error.h"
#include "lower_case.h"
#include "options.h"

extern char** environ;

namespace aoe::host {
namespace {

using aoe::sdk::Error;
using aoe::sdk::StatusCode;

[[noreturn]] void bad_value(const std::string& key, const std::string& source, const std::string& why) {
  throw Error(StatusCode::invalid_argument, "'" + key + "' from " + source + ": " + why);
}

std::string known_keys() {
  std::string out;
  for (const auto& spec : option_specs()) out += (out.empty() ? "" : ", ") + spec.key;
  return out;
}

bool parse_boolean(const std::string& text, bool& out) {
  const std::string t = lower_case(text);
  if (t == "true" || t == "1" || t == "yes" || t == "on") return out = true, true;
  if (t == "false" || t == "0" || t == "no" || t == "off") return out = false, true;
  return false;
}

void validate(const OptionSpec& spec, const SettingValue& v) {
  if (!spec.choices.empty() && !v.text.empty() &&
      std::find(spec.choices.begin(), spec.choices.end(), v.text) == spec.choices.end()) {
    std::string allowed;
    for (const auto& c : spec.choices) allowed += (allowed.empty() ? "" : ", ") + c;
    if (spec.key == "framework")
      bad_value(spec.key, v.source,
                "AOE's framework " + v.text + (v.text == "1" ? " (MindSpore)" : "") +
                    " is not read yet: aoe-host reads ONNX (5), Caffe (0) and TensorFlow (3) models; export the "
                    "model to ONNX");
    bad_value(spec.key, v.source, "'" + v.text + "' is not one of " + allowed);
  }
  if (spec.type == OptionType::integer) {
    size_t used = 0;
    try {
      std::stoll(v.text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != v.text.size()) bad_value(spec.key, v.source, "'" + v.text + "' is not an integer");
    if (v.text[0] == '-') bad_value(spec.key, v.source, "'" + v.text + "' is negative");
  }
  bool ignored = false;
  if (spec.type == OptionType::boolean && !parse_boolean(v.text, ignored))
    bad_value(spec.key, v.source, "'" + v.text + "' is not True or False");
}

// The `key: value` pairs of a YAML map, each list value joined with ':'.
std::map<std::string, std::string> config_pairs(const YAML::Node& root, const std::filesystem::path& file) {
  std::map<std::string, std::string> out;
  for (const auto& item : root) {
    const auto key = item.first.as<std::string>();
    if (key == "config") throw Error(StatusCode::invalid_argument, "config file " + file.string() + ": 'config' cannot nest");
    if (item.second.IsSequence()) {
      std::string joined;
      for (const auto& v : item.second) joined += (joined.empty() ? "" : ":") + v.as<std::string>();
      out[key] = joined;
    } else if (item.second.IsScalar()) {
      out[key] = item.second.as<std::string>();
    } else {
      throw Error(StatusCode::invalid_argument, "config file " + file.string() + ": '" + key + "' must be a value or a list");
    }
  }
  return out;
}

// A YAML file of `key: value` pairs, same keys as the command line.
std::map<std::string, std::string> read_config_file(const std::filesystem::path& file) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(file.string());
  } catch (const YAML::BadFile&) {
    throw Error(StatusCode::io, "cannot read config file " + file.string());
  } catch (const YAML::Exception& e) {
    throw Error(StatusCode::invalid_argument, "config file " + file.string() + ": " + e.what());
  }
  if (root.IsNull()) return {};
  if (!root.IsMap()) throw Error(StatusCode::invalid_argument, "config file " + file.string() + ": expected `key: value` lines");
  // A key or a list item that is itself a map or a list is no string: yaml-cpp
  // throws its own exception, which must name the file as the rest do.
  try {
    return config_pairs(root, file);
  } catch (const YAML::Exception& e) {
    throw Error(StatusCode::invalid_argument, "config file " + file.string() + ": " + e.what() +
                                                  "; write `key: value` or `key: [value, ...]` lines");
  }
}

}  // namespace

Settings::Environment Settings::process_environment() {
  Environment env;
  for (char** e = environ; e && *e; ++e) {
    const std::string entry = *e;
    const auto eq = entry.find('=');
    if (eq != std::string::npos) env[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  return env;
}

Settings Settings::resolve(const std::map<std::string, std::string>& command_line, const Environment& environment,
                           const std::filesystem::path& config_file) {
  Settings s;
  for (const auto& spec : option_specs()) s.values_[spec.key] = {spec.default_value, "default"};
  if (!config_file.empty()) {
    for (const auto& [key, text] : read_config_file(config_file)) {
      if (!find_option(key))
        throw Error(StatusCode::invalid_argument, "config file " + config_file.string() + ": unknown key '" + key +
                                                      "' (known: " + known_keys() + ")");
      s.set(key, text, "config file " + config_file.string());
    }
  }
  for (const auto& spec : option_specs()) {
    if (spec.env.empty()) continue;
    auto it = environment.find(spec.env);
    if (it != environment.end() && !it->second.empty()) s.set(spec.key, it->second, "environment " + spec.env);
  }
  for (const auto& [key, text] : command_line) {
    if (const std::string* note = aoe_option_not_supported(key))
      throw Error(StatusCode::invalid_argument, "AOE's option --" + key + " is not supported by aoe-host: " + *note);
    if (!find_option(key)) throw Error(StatusCode::invalid_argument, "unknown option --" + key + " (see --help)");
    s.set(key, text, "command line --" + key);
  }
  for (const auto& spec : option_specs()) {
    s.canonicalize(spec);
    validate(spec, s.values_.at(spec.key));
  }
  return s;
}

void Settings::set(const std::string& key, const std::string& text, const std::string& source) {
  values_[key] = {text, source};
}

// Enumerated values are accepted in any case (AOE's users write RL, True,
// INFO) and kept as the option spells them.
void Settings::canonicalize(const OptionSpec& spec) {
  auto& v = values_.at(spec.key);
  for (const auto& choice : spec.choices)
    if (lower_case(choice) == lower_case(v.text)) v.text = choice;
}

bool Settings::has(const std::string& key) const { return values_.at(key).source != "default"; }
std::string Settings::text(const std::string& key) const { return values_.at(key).text; }
const std::string& Settings::source(const std::string& key) const { return values_.at(key).source; }

int64_t Settings::integer(const std::string& key) const { return std::stoll(values_.at(key).text); }

bool Settings::boolean(const std::string& key) const {
  bool out = false;
  parse_boolean(values_.at(key).text, out);
  return out;
}

std::vector<std::filesystem::path> Settings::paths(const std::string& key) const {
  std::vector<std::filesystem::path> out;
  std::stringstream in(values_.at(key).text);
  for (std::string part; std::getline(in, part, ':');)
    if (!part.empty()) out.emplace_back(part);
  return out;
}

}  // namespace aoe::host
