// SPDX-License-Identifier: Apache-2.0
// A tuning space: named knobs over integer, power-of-two or categorical
// domains, and the device's default config. A config is one value per knob.
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "aoe/sdk/error.h"

namespace aoe::sdk {

using Config = std::vector<int64_t>;

// What kind of change a knob makes, so results can say which kind paid.
enum class KnobTag { format, schedule, impl };
enum class DomainKind { integer, power_of_two, categorical };

inline const char* to_string(KnobTag t) {
  switch (t) {
    case KnobTag::format: return "Format";
    case KnobTag::schedule: return "Schedule";
    case KnobTag::impl: return "Impl";
  }
  return "Schedule";
}
inline const char* to_string(DomainKind k) {
  switch (k) {
    case DomainKind::integer: return "integer";
    case DomainKind::power_of_two: return "power_of_two";
    case DomainKind::categorical: return "categorical";
  }
  return "integer";
}

struct Knob {
  std::string name;
  KnobTag tag = KnobTag::schedule;
  DomainKind kind = DomainKind::integer;
  std::vector<int64_t> values;      // every allowed value, ascending
  std::vector<std::string> labels;  // categorical only: labels[value]

  static Knob integer(std::string name, KnobTag tag, int64_t lo, int64_t hi, int64_t step = 1) {
    Knob k{std::move(name), tag, DomainKind::integer, {}, {}};
    for (int64_t v = lo; v <= hi; v += step) k.values.push_back(v);
    return k;
  }
  static Knob power_of_two(std::string name, KnobTag tag, int64_t lo, int64_t hi) {
    Knob k{std::move(name), tag, DomainKind::power_of_two, {}, {}};
    for (int64_t v = lo; v <= hi; v *= 2) k.values.push_back(v);
    return k;
  }
  static Knob categorical(std::string name, KnobTag tag, std::vector<std::string> labels) {
    Knob k{std::move(name), tag, DomainKind::categorical, {}, std::move(labels)};
    for (size_t i = 0; i < k.labels.size(); ++i) k.values.push_back(static_cast<int64_t>(i));
    return k;
  }

  bool allows(int64_t v) const { return std::binary_search(values.begin(), values.end(), v); }
  // The value as users read it: the label of a categorical choice, else the number.
  nlohmann::json display(int64_t v) const {
    if (kind == DomainKind::categorical && v >= 0 && v < static_cast<int64_t>(labels.size()))
      return labels[static_cast<size_t>(v)];
    return v;
  }
  // A value as a bank or a user writes it: a label, an allowed number, or
  // true / false for 1 / 0; nothing for what the knob does not take.
  std::optional<int64_t> value_of(const nlohmann::json& shown) const {
    int64_t v = -1;
    if (shown.is_string()) {
      const auto it = std::find(labels.begin(), labels.end(), shown.get<std::string>());
      if (it == labels.end()) return std::nullopt;
      v = it - labels.begin();
    } else if (shown.is_number_integer()) {
      v = shown.get<int64_t>();
    } else if (shown.is_boolean()) {
      v = shown.get<bool>() ? 1 : 0;
    } else {
      return std::nullopt;
    }
    return allows(v) ? std::optional<int64_t>(v) : std::nullopt;
  }
};

struct TuningSpace {
  std::string version = "1";  // bumps when the device's meaning of a config changes: part of the bank key
  std::vector<Knob> knobs;
  Config default_config;

  double size() const {
    double n = 1;
    for (const auto& k : knobs) n *= static_cast<double>(k.values.size());
    return n;
  }
  bool in_domain(const Config& c) const {
    if (c.size() != knobs.size()) return false;
    for (size_t i = 0; i < c.size(); ++i)
      if (!knobs[i].allows(c[i])) return false;
    return true;
  }
  nlohmann::json describe(const Config& c) const {
    nlohmann::json out = nlohmann::json::object();
    for (size_t i = 0; i < knobs.size() && i < c.size(); ++i) out[knobs[i].name] = knobs[i].display(c[i]);
    return out;
  }
};

// Calls visit(config) for every config of the space, valid or not, the last
// knob turning fastest: an exhaustive walk in memory of one config.
template <typename Visit>
void for_each_config(const TuningSpace& space, Visit&& visit) {
  const auto& knobs = space.knobs;
  for (const auto& k : knobs)
    if (k.values.empty()) return;
  std::vector<size_t> at(knobs.size(), 0);
  Config c(knobs.size());
  for (size_t k = 0; k < knobs.size(); ++k) c[k] = knobs[k].values[0];
  for (;;) {
    visit(static_cast<const Config&>(c));
    size_t k = knobs.size();
    for (;;) {
      if (k == 0) return;
      --k;
      if (++at[k] < knobs[k].values.size()) {
        c[k] = knobs[k].values[at[k]];
        break;
      }
      at[k] = 0;
      c[k] = knobs[k].values[0];
    }
  }
}

inline void to_json(nlohmann::json& j, const Knob& k) {
  j = {{"name", k.name}, {"tag", to_string(k.tag)}, {"kind", to_string(k.kind)}, {"values", k.values}};
  if (!k.labels.empty()) j["labels"] = k.labels;
}
inline void from_json(const nlohmann::json& j, Knob& k) {
  k.name = j.at("name").get<std::string>();
  const auto tag = j.value("tag", "Schedule");
  k.tag = tag == "Format" ? KnobTag::format : tag == "Impl" ? KnobTag::impl : KnobTag::schedule;
  const auto kind = j.value("kind", "integer");
  k.kind = kind == "categorical"    ? DomainKind::categorical
           : kind == "power_of_two" ? DomainKind::power_of_two
                                    : DomainKind::integer;
  k.values = j.at("values").get<std::vector<int64_t>>();
  std::sort(k.values.begin(), k.values.end());
  k.labels = j.value("labels", std::vector<std::string>{});
  if (k.values.empty()) throw Error(StatusCode::invalid_argument, "knob '" + k.name + "' has an empty domain");
}
inline void to_json(nlohmann::json& j, const TuningSpace& s) {
  j = {{"version", s.version}, {"knobs", s.knobs}, {"default", s.default_config}};
}
inline void from_json(const nlohmann::json& j, TuningSpace& s) {
  s.version = j.value("version", "1");
  s.knobs = j.at("knobs").get<std::vector<Knob>>();
  s.default_config = j.value("default", Config{});
  if (!s.default_config.empty() && !s.in_domain(s.default_config))
    throw Error(StatusCode::invalid_argument, "the default config lies outside the tuning space");
}

}  // namespace aoe::sdk
