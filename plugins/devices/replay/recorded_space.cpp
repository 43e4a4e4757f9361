#include "recorded_space.h"

#include <algorithm>
#include <limits>
#include <set>

#include "aoe/sdk/error.h"

namespace aoe::replay {
namespace {

using nlohmann::json;
using sdk::Config;
using sdk::Error;
using sdk::Measurement;
using sdk::ResultStatus;
using sdk::StatusCode;

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

bool all_integers(const std::vector<json>& values) {
  return std::all_of(values.begin(), values.end(), [](const json& v) { return v.is_number_integer(); });
}

std::string label(const json& v) { return v.is_string() ? v.get<std::string>() : v.is_boolean() ? (v.get<bool>() ? "True" : "False") : v.dump(); }

}  // namespace

RecordedSpace::RecordedSpace(Cachefile cache, std::optional<KernelDescription> kernel)
    : cache_(std::move(cache)), kernel_(std::move(kernel)) {
  std::vector<std::string> names = cache_.keys;
  std::vector<std::vector<json>> domains = cache_.domains;
  if (kernel_) {
    names = kernel_->names();
    domains.clear();
    for (const auto& p : kernel_->parameters) domains.push_back(p.values);
    if (std::set<std::string>(names.begin(), names.end()) != std::set<std::string>(cache_.keys.begin(), cache_.keys.end()))
      throw Error(StatusCode::invalid_argument, "kernel description " + kernel_->path.string() + " has parameters " +
                                                    joined(names) + " but cachefile " + cache_.path.string() +
                                                    " records " + joined(cache_.keys));
  }
  for (const auto& name : names)
    cache_column_.push_back(static_cast<size_t>(std::find(cache_.keys.begin(), cache_.keys.end(), name) - cache_.keys.begin()));
  build_knobs(names, domains);
  index_records();
  pick_default();
}

void RecordedSpace::build_knobs(const std::vector<std::string>& names, const std::vector<std::vector<json>>& domains) {
  for (size_t k = 0; k < names.size(); ++k) {
    Axis axis;
    sdk::Knob knob;
    if (all_integers(domains[k])) {
      std::vector<int64_t> values;
      for (const auto& v : domains[k]) values.push_back(v.get<int64_t>());
      std::sort(values.begin(), values.end());
      values.erase(std::unique(values.begin(), values.end()), values.end());
      knob = {names[k], sdk::KnobTag::schedule, sdk::DomainKind::integer, values, {}};
      for (int64_t v : values) axis.by_text[json(v).dump()] = v;
    } else {
      std::vector<std::string> labels;
      for (const auto& v : domains[k]) {
        if (axis.by_text.count(v.dump())) continue;
        axis.by_text[v.dump()] = static_cast<int64_t>(labels.size());
        labels.push_back(label(v));
        axis.numbers.push_back(v.is_number_integer() ? Number::of(v.get<int64_t>())
                               : v.is_number()       ? Number::of(v.get<double>())
                               : v.is_boolean()      ? Number::of(int64_t{v.get<bool>()})
                                                     : Number{});
        axis.numeric.push_back(v.is_number() || v.is_boolean());
      }
      knob = sdk::Knob::categorical(names[k], sdk::KnobTag::schedule, labels);
    }
    space_.knobs.push_back(std::move(knob));
    axes_.push_back(std::move(axis));
  }
  if (!kernel_) return;
  for (const auto& c : kernel_->conditions)
    for (size_t k : c.uses())
      if (std::find(axes_[k].numeric.begin(), axes_[k].numeric.end(), false) != axes_[k].numeric.end())
        throw Error(StatusCode::invalid_argument, "kernel description " + kernel_->path.string() + ": condition \"" +
                                                      c.text() + "\" reads parameter '" + names[k] +
                                                      "', whose values are not all numbers");
}

void RecordedSpace::index_records() {
  double best = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < cache_.records.size(); ++i) {
    const Record& r = cache_.records[i];
    ++counts_.recorded;
    switch (r.outcome) {
      case Outcome::timed: ++counts_.valid; break;
      case Outcome::compile_failed: ++counts_.compile_failed; break;
      case Outcome::runtime_failed: ++counts_.runtime_failed; break;
      case Outcome::invalid: ++counts_.invalid; break;
    }
    const auto config = config_of(r);
    if (!config) continue;
    index_.emplace(*config, i);
    if (r.outcome == Outcome::timed && r.time_ms < best && !broken_condition(*config)) {
      best = r.time_ms;
      optimum_ = i;
    }
  }
  if (best == std::numeric_limits<double>::infinity())
    throw Error(StatusCode::invalid_argument, "cachefile " + cache_.path.string() +
                                                  " records no timed config that the tuning space reaches");
}

void RecordedSpace::pick_default() {
  std::string why_not;
  if (kernel_) {
    Config config;
    for (size_t k = 0; k < kernel_->parameters.size() && why_not.empty(); ++k) {
      const auto& p = kernel_->parameters[k];
      const auto it = p.default_value ? axes_[k].by_text.find(p.default_value->dump()) : axes_[k].by_text.end();
      if (!p.default_value)
        why_not = "gives '" + p.name + "' no Default";
      else if (it == axes_[k].by_text.end())
        why_not = "of '" + p.name + "' is not among its Values";
      else
        config.push_back(it->second);
    }
    if (why_not.empty()) {
      const Measurement verdict = check(config);
      const Record* r = record(config);
      if (!verdict.ok())
        why_not = "is invalid: " + verdict.message;
      else if (r->outcome != Outcome::timed)
        why_not = std::string("was recorded as ") + to_string(r->outcome);
      else {
        space_.default_config = config;
        default_source_ = "the kernel description's Default";
        return;
      }
    }
  }
  for (const Record& r : cache_.records) {
    if (r.outcome != Outcome::timed) continue;
    const auto config = config_of(r);
    if (!config || !check(*config).ok()) continue;
    space_.default_config = *config;
    default_source_ = "the first timed config in the cachefile";
    if (!why_not.empty()) default_source_ += " (the description's Default " + why_not + ")";
    return;
  }
}

const Record* RecordedSpace::record(const Config& config) const {
  const auto it = index_.find(config);
  return it == index_.end() ? nullptr : &cache_.records[it->second];
}

std::optional<Config> RecordedSpace::config_of(const Record& record) const {
  Config config;
  for (size_t k = 0; k < axes_.size(); ++k) {
    const auto it = axes_[k].by_text.find(record.values[cache_column_[k]].dump());
    if (it == axes_[k].by_text.end()) return std::nullopt;
    config.push_back(it->second);
  }
  return config;
}

const Condition* RecordedSpace::broken_condition(const Config& config) const {
  if (!kernel_) return nullptr;
  std::vector<Number> values;
  values.reserve(config.size());
  for (size_t k = 0; k < config.size(); ++k)
    values.push_back(space_.knobs[k].kind == sdk::DomainKind::categorical ? axes_[k].numbers[static_cast<size_t>(config[k])]
                                                                          : Number::of(config[k]));
  for (const auto& c : kernel_->conditions)
    if (!c.holds(values)) return &c;
  return nullptr;
}

Measurement RecordedSpace::check(const Config& config) const {
  if (!space_.in_domain(config)) return Measurement::failed(ResultStatus::invalid, "a value lies outside its knob's domain");
  if (const Condition* broken = broken_condition(config))
    return Measurement::failed(ResultStatus::invalid, "breaks condition \"" + broken->text() + "\"");
  const Record* r = record(config);
  if (!r) return Measurement::failed(ResultStatus::invalid, "not recorded in " + cache_.path.filename().string());
  if (r->outcome == Outcome::invalid)
    return Measurement::failed(ResultStatus::invalid, "recorded as InvalidConfig in " + cache_.path.filename().string());
  return {};
}

RecordedSpace::Disagreements RecordedSpace::constraint_disagreements() const {
  Disagreements out;
  if (!kernel_) return out;
  sdk::for_each_config(space_, [&](const Config& c) {
    const bool accepted = broken_condition(c) == nullptr;
    const Record* r = record(c);
    if (accepted && !r) ++out.accepted_unrecorded;
    if (accepted && r && r->outcome == Outcome::invalid) ++out.accepted_recorded_invalid;
    if (!accepted && r && r->outcome != Outcome::invalid) ++out.rejected_recorded;
  });
  return out;
}

}  // namespace aoe::replay
