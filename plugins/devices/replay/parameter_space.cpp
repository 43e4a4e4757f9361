#include "parameter_space.h"

#include <algorithm>

#include "aoe/sdk/error.h"

namespace aoe::replay {
namespace {

using sdk::Config;
using sdk::Error;
using sdk::Measurement;
using sdk::ResultStatus;
using sdk::StatusCode;

bool all_integers(const std::vector<nlohmann::json>& values) {
  return std::all_of(values.begin(), values.end(), [](const nlohmann::json& v) { return v.is_number_integer(); });
}

std::string label(const nlohmann::json& v) {
  return v.is_string() ? v.get<std::string>() : v.is_boolean() ? (v.get<bool>() ? "True" : "False") : v.dump();
}

Number number_of(const nlohmann::json& v) {
  return v.is_number_integer() ? Number::of(v.get<int64_t>())
         : v.is_number()       ? Number::of(v.get<double>())
         : v.is_boolean()      ? Number::of(int64_t{v.get<bool>()})
                               : Number{};
}

std::vector<std::vector<nlohmann::json>> domains_of(const KernelDescription& kernel) {
  std::vector<std::vector<nlohmann::json>> out;
  for (const auto& p : kernel.parameters) out.push_back(p.values);
  return out;
}

}  // namespace

ParameterSpace::ParameterSpace(std::vector<std::string> names, const std::vector<std::vector<nlohmann::json>>& domains)
    : names_(std::move(names)) {
  build_knobs(domains);
}

ParameterSpace::ParameterSpace(const KernelDescription& kernel) : ParameterSpace(kernel.names(), domains_of(kernel)) {
  const std::string where = "kernel description " + kernel.path.string();
  for (const auto& c : kernel.conditions) {
    conditions_.emplace_back(c.text(), names_, where);
    for (size_t k : c.uses())
      if (!axes_[k].numeric)
        throw Error(StatusCode::invalid_argument, where + ": condition \"" + c.text() + "\" reads parameter '" +
                                                      names_[k] + "', whose values are not all numbers");
  }
}

void ParameterSpace::build_knobs(const std::vector<std::vector<nlohmann::json>>& domains) {
  for (size_t k = 0; k < names_.size(); ++k) {
    Axis axis;
    if (all_integers(domains[k])) {
      std::vector<int64_t> values;
      for (const auto& v : domains[k]) values.push_back(v.get<int64_t>());
      std::sort(values.begin(), values.end());
      values.erase(std::unique(values.begin(), values.end()), values.end());
      for (int64_t v : values) {
        axis.by_text[nlohmann::json(v).dump()] = v;
        axis.values.emplace_back(v);
        axis.numbers.push_back(Number::of(v));
      }
      space_.knobs.push_back({names_[k], sdk::KnobTag::schedule, sdk::DomainKind::integer, values, {}});
    } else {
      std::vector<std::string> labels;
      for (const auto& v : domains[k]) {
        if (axis.by_text.count(v.dump())) continue;
        axis.by_text[v.dump()] = static_cast<int64_t>(labels.size());
        labels.push_back(label(v));
        axis.values.push_back(v);
        axis.numbers.push_back(number_of(v));
        axis.numeric = axis.numeric && (v.is_number() || v.is_boolean());
      }
      space_.knobs.push_back(sdk::Knob::categorical(names_[k], sdk::KnobTag::schedule, labels));
    }
    axes_.push_back(std::move(axis));
  }
}

size_t ParameterSpace::position(size_t k, int64_t knob_value) const {
  const auto& knob = space_.knobs[k];
  if (knob.kind == sdk::DomainKind::categorical) return static_cast<size_t>(knob_value);
  return static_cast<size_t>(std::lower_bound(knob.values.begin(), knob.values.end(), knob_value) -
                             knob.values.begin());
}

std::vector<nlohmann::json> ParameterSpace::values(const Config& config) const {
  std::vector<nlohmann::json> out;
  out.reserve(config.size());
  for (size_t k = 0; k < config.size(); ++k) out.push_back(axes_[k].values.at(position(k, config[k])));
  return out;
}

std::vector<Number> ParameterSpace::numbers(const Config& config) const {
  std::vector<Number> out;
  out.reserve(config.size());
  for (size_t k = 0; k < config.size(); ++k)
    out.push_back(space_.knobs[k].kind == sdk::DomainKind::categorical ? axes_[k].numbers.at(position(k, config[k]))
                                                                       : Number::of(config[k]));
  return out;
}

std::optional<int64_t> ParameterSpace::knob_value(size_t k, const nlohmann::json& value) const {
  const auto it = axes_.at(k).by_text.find(value.dump());
  if (it == axes_[k].by_text.end()) return std::nullopt;
  return it->second;
}

std::optional<Config> ParameterSpace::config_of(const std::vector<nlohmann::json>& values) const {
  Config config;
  for (size_t k = 0; k < axes_.size(); ++k) {
    const auto v = knob_value(k, values.at(k));
    if (!v) return std::nullopt;
    config.push_back(*v);
  }
  return config;
}

const Condition* ParameterSpace::broken_condition(const Config& config) const {
  if (conditions_.empty()) return nullptr;
  const std::vector<Number> values = numbers(config);
  for (const auto& c : conditions_)
    if (!c.holds(values)) return &c;
  return nullptr;
}

Measurement ParameterSpace::check(const Config& config) const {
  if (!space_.in_domain(config))
    return Measurement::failed(ResultStatus::invalid, "a value lies outside its knob's domain");
  if (const Condition* broken = broken_condition(config))
    return Measurement::failed(ResultStatus::invalid, "breaks condition \"" + broken->text() + "\"");
  return {};
}

nlohmann::ordered_json ParameterSpace::describe(const Config& config) const {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  const auto v = values(config);
  for (size_t k = 0; k < v.size(); ++k) out[names_[k]] = nlohmann::ordered_json(v[k]);
  return out;
}

}  // namespace aoe::replay
