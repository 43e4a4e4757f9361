#include "cachefile_writer.h"

#include "aoe/sdk/atomic_file.h"
#include "aoe/sdk/error.h"

namespace aoe::replay {
namespace {

using json = nlohmann::ordered_json;

std::string python_str(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
  return v.dump();
}

json entry(const std::vector<std::string>& keys, const Record& r) {
  json e = json::object();
  for (size_t k = 0; k < keys.size(); ++k) e[keys[k]] = json(r.values.at(k));
  if (r.outcome == Outcome::timed) {
    e["time"] = r.time_ms;
    e["times"] = r.times_ms;
  } else {
    e["time"] = to_string(r.outcome);
  }
  e["compile_time"] = r.compile_ms;
  e["verification_time"] = r.verification_ms;
  e["benchmark_time"] = r.benchmark_ms;
  e["strategy_time"] = 0;  // the searcher's, which a device does not know
  e["framework_time"] = r.framework_ms;
  return e;
}

}  // namespace

std::string cache_key(const std::vector<nlohmann::json>& values) {
  std::string key;
  for (size_t k = 0; k < values.size(); ++k) key += (k ? "," : "") + python_str(values[k]);
  return key;
}

CachefileWriter::CachefileWriter(std::filesystem::path file, Cachefile header)
    : file_(std::move(file)), header_(std::move(header)) {
  std::vector<Record> records = std::move(header_.records);
  header_.records.clear();
  for (const auto& r : records) add(r);
}

void CachefileWriter::add(const Record& record) {
  if (record.values.size() != header_.keys.size())
    throw sdk::Error(sdk::StatusCode::invalid_argument, "cachefile " + file_.string() + ": a record gives " +
                                                            std::to_string(record.values.size()) + " values for " +
                                                            std::to_string(header_.keys.size()) + " tune parameters");
  const std::string key = cache_key(record.values);
  std::string text = json(key).dump() + ": " + entry(header_.keys, record).dump();
  const auto [it, added] = index_.emplace(key, entries_.size());
  if (added)
    entries_.push_back(std::move(text));
  else
    entries_[it->second] = std::move(text);
}

void CachefileWriter::save() const {
  json doc = json::object();
  doc["device_name"] = header_.device_name;
  doc["kernel_name"] = header_.kernel_name;
  doc["problem_size"] = json(header_.problem_size);
  doc["tune_params_keys"] = header_.keys;
  doc["tune_params"] = json::object();
  for (size_t k = 0; k < header_.keys.size(); ++k) {
    json& domain = doc["tune_params"][header_.keys[k]] = json::array();
    for (const auto& v : header_.domains.at(k)) domain.push_back(json(v));
  }
  if (!header_.objective.empty()) doc["objective"] = header_.objective;
  doc["cache"] = json::object();
  std::string cache;
  for (size_t i = 0; i < entries_.size(); ++i) cache += (i ? ",\n" : "\n") + entries_[i];
  std::string text = doc.dump();
  text.insert(text.size() - 2, cache + "\n");  // into the "cache":{} that closes the document
  sdk::write_atomically(file_, text + "\n");
}

}  // namespace aoe::replay
