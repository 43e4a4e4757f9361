#include "cachefile.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "aoe/sdk/error.h"
#include "json_file.h"

namespace aoe::replay {
namespace {

using json = nlohmann::ordered_json;

class CachefileReader : FileReader {
 public:
  explicit CachefileReader(const std::filesystem::path& file) : FileReader("cachefile", file) {}

  Cachefile read(const json& doc) const {
    if (!doc.is_object()) fail("is not a Kernel Tuner cachefile: its top level is not an object");
    Cachefile out;
    out.path = file_;
    schema_version(doc);
    out.device_name = optional_text(doc, "device_name");
    if (out.device_name.empty()) out.device_name = device_name_from_file(file_);
    out.kernel_name = text(doc, "kernel_name");
    out.problem_size = nlohmann::json(doc.value("problem_size", json()));
    out.objective = optional_text(doc, "objective");
    if (out.objective.empty()) out.objective = "time";
    out.keys = keys(doc);
    out.domains = domains(doc, out.keys);
    const json& cache = field(doc, "cache");
    if (!cache.is_object()) fail("has a \"cache\" that is not an object");
    out.records.reserve(cache.size());
    for (const auto& [key, entry] : cache.items()) out.records.push_back(record(key, entry, out.keys));
    if (out.records.empty()) fail("records no configuration");
    return out;
  }

 private:
  const json& field(const json& j, const char* name) const {
    if (!j.contains(name)) fail(std::string("has no \"") + name + "\"");
    return j[name];
  }

  std::string text(const json& j, const char* name) const {
    const json& v = field(j, name);
    if (!v.is_string() || v.get<std::string>().empty()) fail(std::string("has a \"") + name + "\" that is not a name");
    return v.get<std::string>();
  }

  // A name the file may leave empty or out, but not give as something else.
  std::string optional_text(const json& j, const char* name) const {
    if (!j.contains(name) || j[name].is_null()) return {};
    if (!j[name].is_string()) fail(std::string("has a \"") + name + "\" that is not a name");
    return j[name].get<std::string>();
  }

  // Kernel Tuner's cachefile schemas 1.x (a file without one is older, and read alike).
  void schema_version(const json& doc) const {
    if (!doc.contains("schema_version")) return;
    const json& v = doc["schema_version"];
    if (!v.is_string() || !v.get<std::string>().starts_with("1."))
      fail("has schema_version " + v.dump() + "; the replay device reads Kernel Tuner's cachefile schemas 1.x");
  }

  std::vector<std::string> keys(const json& doc) const {
    const json& k = field(doc, "tune_params_keys");
    if (!k.is_array()) fail("has a \"tune_params_keys\" that is not a list of names: " + k.dump());
    if (k.empty()) fail("lists no tune_params_keys");
    std::vector<std::string> out;
    for (const auto& name : k) {
      if (!name.is_string()) fail("has a tune_params_keys entry that is not a name: " + name.dump());
      out.push_back(name.get<std::string>());
    }
    return out;
  }

  std::vector<std::vector<nlohmann::json>> domains(const json& doc, const std::vector<std::string>& names) const {
    const json& params = field(doc, "tune_params");
    std::vector<std::vector<nlohmann::json>> out;
    for (const auto& name : names) {
      if (!params.contains(name) || !params[name].is_array() || params[name].empty())
        fail("has no values for tune parameter '" + name + "' in tune_params");
      out.emplace_back();
      for (const auto& v : params[name]) out.back().emplace_back(v);
    }
    return out;
  }

  double number(const std::string& key, const json& entry, const char* name) const {
    if (!entry.contains(name)) return 0;
    const json& v = entry[name];
    if (!v.is_number()) fail("entry \"" + key + "\" has a \"" + name + "\" that is not a number: " + v.dump());
    return v.get<double>();
  }

  Record record(const std::string& key, const json& entry, const std::vector<std::string>& names) const {
    if (!entry.is_object()) fail("entry \"" + key + "\" is not an object");
    Record r;
    r.key = key;
    for (const auto& name : names) {
      if (!entry.contains(name)) fail("entry \"" + key + "\" has no value for tune parameter '" + name + "'");
      r.values.emplace_back(entry[name]);
    }
    check_key(key, r.values);
    if (!entry.contains("time")) fail("entry \"" + key + "\" has no \"time\"");
    const json& time = entry["time"];
    if (time.is_number()) {
      r.time_ms = time.get<double>();
      if (entry.contains("times")) {
        const json& times = entry["times"];
        if (!times.is_array()) fail("entry \"" + key + "\" has \"times\" that are not a list: " + times.dump());
        for (const auto& t : times) {
          if (!t.is_number()) fail("entry \"" + key + "\" has a \"times\" value that is not a number: " + t.dump());
          r.times_ms.push_back(t.get<double>());
        }
      }
    } else if (time.is_string()) {
      r.outcome = outcome(key, time.get<std::string>());
    } else {
      fail("entry \"" + key + "\" has a \"time\" that is neither a number nor a failure: " + time.dump());
    }
    r.compile_ms = number(key, entry, "compile_time");
    r.benchmark_ms = number(key, entry, "benchmark_time");
    r.framework_ms = number(key, entry, "framework_time");
    r.verification_ms = number(key, entry, "verification_time");
    return r;
  }

  // Kernel Tuner keys an entry by its values as Python prints them, joined
  // by commas ("16,1"): a key of other values is not an entry it wrote.
  // Objects and lists are not compared (Python prints them its own way).
  void check_key(const std::string& key, const std::vector<nlohmann::json>& values) const {
    std::vector<std::string> parts;
    for (size_t start = 0;;) {
      const size_t comma = key.find(',', start);
      parts.push_back(key.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    // A value that is no number, bool or string (an object parameter) may be left out of the key.
    std::vector<const nlohmann::json*> named;
    for (const auto& v : values)
      if (parts.size() == values.size() || v.is_primitive()) named.push_back(&v);
    bool agrees = parts.size() == named.size();
    for (size_t i = 0; agrees && i < named.size(); ++i) {
      const auto& v = *named[i];
      const std::string& part = parts[i];
      if (v.is_boolean()) agrees = part == (v.get<bool>() ? "True" : "False");
      else if (v.is_number_integer()) agrees = part == v.dump();
      else if (v.is_number()) agrees = number_reads_as(part, v.get<double>());
      else if (v.is_string()) agrees = part == v.get<std::string>();
    }
    if (!agrees) {
      std::string written;
      for (const auto& v : values) written += (written.empty() ? "" : ", ") + v.dump();
      fail("entry \"" + key + "\" records the values " + written + ", which its key does not name");
    }
  }

  static bool number_reads_as(const std::string& text, double value) {
    char* end = nullptr;
    const double read = std::strtod(text.c_str(), &end);
    return !text.empty() && end == text.c_str() + text.size() && std::abs(read - value) <= 1e-6 * std::max(1.0, std::abs(value));
  }

  Outcome outcome(const std::string& key, const std::string& failure) const {
    if (failure == "CompilationFailedConfig") return Outcome::compile_failed;
    if (failure == "RuntimeFailedConfig") return Outcome::runtime_failed;
    if (failure == "InvalidConfig") return Outcome::invalid;
    fail("entry \"" + key + "\" has an unknown failure \"" + failure +
         "\" (Kernel Tuner writes InvalidConfig, CompilationFailedConfig or RuntimeFailedConfig)");
  }
};

}  // namespace

const char* to_string(Outcome outcome) {
  switch (outcome) {
    case Outcome::timed: return "timed";
    case Outcome::compile_failed: return "CompilationFailedConfig";
    case Outcome::runtime_failed: return "RuntimeFailedConfig";
    case Outcome::invalid: return "InvalidConfig";
  }
  return "timed";
}

Cachefile read_cachefile(const std::filesystem::path& file, uint64_t max_bytes) {
  const std::string text = read_maybe_gzip(file, max_bytes);
  nlohmann::ordered_json document;
  bool left_open = false;
  try {
    document = parse_json_text(file, text);
  } catch (const sdk::Error&) {
    // Open: the text ends after an entry (or after "cache": {), maybe with a comma.
    std::string closed = text.substr(0, text.find_last_not_of(" \t\r\n") + 1);
    if (!closed.empty() && closed.back() == ',') closed.pop_back();
    try {
      document = nlohmann::ordered_json::parse(closed + "\n}\n}");
      left_open = document.is_object() && document.contains("cache");
    } catch (const nlohmann::ordered_json::exception&) {
    }
    if (!left_open) throw;  // not an open cache: the first parse error says why
  }
  Cachefile c = CachefileReader(file).read(document);
  c.left_open = left_open;
  return c;
}

std::string device_name_from_file(const std::filesystem::path& file) {
  std::string stem = file.filename().string();
  for (const char* ext : {".gz", ".json"})
    if (stem.size() > std::strlen(ext) && stem.ends_with(ext)) stem.resize(stem.size() - std::strlen(ext));
  const auto last = stem.rfind('_');
  const std::string part = last == std::string::npos ? stem : stem.substr(last + 1);
  // A GPU's model names a number (A100, MI250X, W6600); "cache" or "name" is no GPU.
  return std::any_of(part.begin(), part.end(), [](unsigned char c) { return std::isdigit(c); }) ? part : "";
}

}  // namespace aoe::replay
