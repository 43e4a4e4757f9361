#include "warm_start.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "bank_keys.h"

namespace aoe::opat {
namespace {

using aoe::sdk::Config;
using aoe::sdk::DomainKind;
using aoe::sdk::Knob;
using nlohmann::json;

// Bank entries asked per seed wanted, at first: some configs are the
// default, repeat one another or are refused by the device.
constexpr size_t kEntriesPerSeed = 4;
// The most asked for, however many of those are of no use: what lies
// beyond a family's 64 nearest ops is far enough for the searcher's own start.
constexpr size_t kMostEntries = 64;

std::optional<json> parsed(const std::string& signature) {
  json out = json::parse(signature, nullptr, /*allow_exceptions=*/false);
  if (out.is_discarded() || !out.is_object()) return std::nullopt;
  return out;
}

// Sum of |log(a/b)| over the dims of corresponding tensors; none when a
// tensor's dtype, format or rank differs.
std::optional<double> tensors_distance(const json& a, const json& b) {
  if (!a.is_array() || !b.is_array() || a.size() != b.size()) return std::nullopt;
  double sum = 0;
  for (size_t t = 0; t < a.size(); ++t) {
    if (a[t].value("dtype", "") != b[t].value("dtype", "") || a[t].value("format", "") != b[t].value("format", ""))
      return std::nullopt;
    const auto da = a[t].value("shape", std::vector<int64_t>{}), db = b[t].value("shape", std::vector<int64_t>{});
    if (da.size() != db.size()) return std::nullopt;
    for (size_t d = 0; d < da.size(); ++d) {
      if (da[d] == db[d]) continue;
      if (da[d] <= 0 || db[d] <= 0) return std::nullopt;
      sum += std::abs(std::log(static_cast<double>(da[d]) / static_cast<double>(db[d])));
    }
  }
  return sum;
}

std::optional<double> distance_or_throw(const json& a, const json& b) {
  for (const char* same : {"op_type", "fused_ops", "attrs"})
    if (a.value(same, json()) != b.value(same, json())) return std::nullopt;
  const auto inputs = tensors_distance(a.value("inputs", json()), b.value("inputs", json()));
  const auto outputs = tensors_distance(a.value("outputs", json()), b.value("outputs", json()));
  if (!inputs || !outputs) return std::nullopt;
  return *inputs + *outputs;
}

// A signature of unexpected structure (a hand-edited bank) is unlike any op.
std::optional<double> distance(const json& a, const json& b) {
  try {
    return distance_or_throw(a, b);
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

// The allowed value nearest x: by ratio when both are sizes (positive), so
// 48 maps to 64 rather than 32 in {32, 64}; else by difference.
int64_t nearest_allowed(const Knob& knob, double x) {
  const bool sizes = x > 0 && knob.values.front() > 0;
  int64_t best = knob.values.front();
  double best_gap = std::numeric_limits<double>::infinity();
  for (const int64_t v : knob.values) {
    const double gap = sizes ? std::abs(std::log(x / static_cast<double>(v))) : std::abs(x - static_cast<double>(v));
    if (gap < best_gap) best = v, best_gap = gap;
  }
  return best;
}

int64_t mapped_value(const Knob& knob, const json& value, int64_t fallback) {
  if (knob.values.empty()) return fallback;
  if (const auto exact = knob.value_of(value)) return *exact;
  if (knob.kind == DomainKind::categorical || !value.is_number()) return fallback;
  return nearest_allowed(knob, value.get<double>());
}

}  // namespace

std::optional<double> shape_distance(const std::string& signature, const std::string& other) {
  const auto a = parsed(signature), b = parsed(other);
  if (!a || !b) return std::nullopt;
  return distance(*a, *b);
}

Config map_config(const aoe::sdk::TuningSpace& space, const json& config_by_name) {
  Config out = space.default_config;
  out.resize(space.knobs.size());
  if (!config_by_name.is_object()) return out;
  for (size_t i = 0; i < space.knobs.size(); ++i) {
    const auto it = config_by_name.find(space.knobs[i].name);
    if (it != config_by_name.end()) out[i] = mapped_value(space.knobs[i], *it, out[i]);
  }
  return out;
}

std::vector<Seed> ranked_seeds(const aoe::sdk::TuningSpace& space, const std::string& signature,
                               const std::vector<json>& entries) {
  const auto own = parsed(signature);
  if (!own) return {};
  struct Candidate {
    Seed seed;
    double after_us;
  };
  std::vector<Candidate> candidates;
  for (const auto& entry : entries) {
    if (!entry.is_object() || !entry.contains("key") || !entry["key"].is_object()) continue;
    const json& sig = entry["key"].value("signature", json());
    if (!sig.is_string() || sig.get<std::string>() == signature) continue;
    const auto other = parsed(sig.get<std::string>());
    const auto d = other ? distance(*own, *other) : std::nullopt;
    if (!d) continue;
    const Config config = map_config(space, entry.value("config", json()));
    if (config == space.default_config) continue;
    const json& after = entry.value("after_us", json());
    candidates.push_back({{config, *d}, after.is_number() ? after.get<double>() : 0.0});
  }
  // Nearest first; between equally near ops, the one that ran faster.
  std::stable_sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    return a.seed.distance != b.seed.distance ? a.seed.distance < b.seed.distance : a.after_us < b.after_us;
  });
  std::vector<Seed> out;
  std::set<Config> taken;
  for (auto& c : candidates)
    if (taken.insert(c.seed.config).second) out.push_back(std::move(c.seed));
  return out;
}

size_t seed_count(uint64_t budget) {
  if (budget < 2) return 0;
  return static_cast<size_t>(std::clamp<uint64_t>(budget / 4, 1, 4));
}

std::vector<Config> warm_start_seeds(const aoe::sdk::Host& host, const aoe::sdk::TaskClient& task,
                                     const aoe::sdk::OpTask& op, const json& key, uint64_t budget) {
  const size_t wanted = seed_count(budget);
  if (wanted == 0) return {};
  const json signature = json::parse(op.signature());
  const json query = {{"kind", "op"},
                      {"soc_version", key.at("soc_version")},
                      {"space_version", key.at("space_version")},
                      {"op_type", op.op_type},
                      {"family", key.value("family", aoe::modes::op_family(signature))}};
  const auto dims = aoe::modes::op_dims(signature);
  std::vector<json> entries;
  std::vector<Config> seeds;
  std::map<Config, bool> accepted;  // the device's answer per config, asked once
  size_t candidates = 0;
  // The nearest entries the bank's index ranks, more of them while too few
  // give seeds; the whole family from a host without bank_nearest.
  for (size_t asked = wanted * kEntriesPerSeed;; asked *= 2) {
    try {
      auto nearest = host.bank_nearest(query, dims, asked);
      entries = nearest ? std::move(*nearest) : host.bank_entries(query);
      if (!nearest) asked = kMostEntries;
    } catch (const std::exception& e) {
      // The search runs as well without a head start.
      host.warn(std::string("warm start skipped: ") + e.what());
      return {};
    }
    const auto ranked = ranked_seeds(task.space(), op.signature(), entries);
    candidates = ranked.size();
    seeds.clear();
    for (const auto& seed : ranked) {
      if (seeds.size() == wanted) break;
      auto answer = accepted.find(seed.config);
      if (answer == accepted.end()) answer = accepted.emplace(seed.config, task.check(seed.config).ok()).first;
      if (answer->second) seeds.push_back(seed.config);
    }
    if (seeds.size() == wanted || entries.size() < asked || asked >= kMostEntries) break;
  }
  const size_t refused =
      std::count_if(accepted.begin(), accepted.end(), [](const auto& answer) { return !answer.second; });
  host.debug("warm start: " + std::to_string(entries.size()) + " banked " + op.op_type + " of its family, " +
             std::to_string(candidates) + " configs of alike shapes, " + std::to_string(refused) +
             " refused by the device");
  return seeds;
}

}  // namespace aoe::opat
