#include "recorded_space.h"

#include <algorithm>
#include <limits>
#include <set>

#include "aoe/sdk/error.h"

namespace aoe::replay {
namespace {

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

// The description's parameters when there is one, else the cachefile's.
ParameterSpace parameters_of(const Cachefile& cache, const std::optional<KernelDescription>& kernel) {
  if (!kernel) return ParameterSpace(cache.keys, cache.domains);
  const auto names = kernel->names();
  if (std::set<std::string>(names.begin(), names.end()) != std::set<std::string>(cache.keys.begin(), cache.keys.end()))
    throw Error(StatusCode::invalid_argument, "kernel description " + kernel->path.string() + " has parameters " +
                                                  joined(names) + " but cachefile " + cache.path.string() +
                                                  " records " + joined(cache.keys));
  return ParameterSpace(*kernel);
}

}  // namespace

RecordedSpace::RecordedSpace(Cachefile cache, std::optional<KernelDescription> kernel)
    : cache_(std::move(cache)), kernel_(std::move(kernel)), parameters_(parameters_of(cache_, kernel_)),
      space_(parameters_.space()) {
  for (const auto& name : parameters_.names())
    cache_column_.push_back(static_cast<size_t>(std::find(cache_.keys.begin(), cache_.keys.end(), name) - cache_.keys.begin()));
  index_records();
  pick_default();
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
    if (r.outcome == Outcome::timed && r.time_ms < best && !parameters_.broken_condition(*config)) {
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
      const auto value = p.default_value ? parameters_.knob_value(k, *p.default_value) : std::nullopt;
      if (!p.default_value)
        why_not = "gives '" + p.name + "' no Default";
      else if (!value)
        why_not = "of '" + p.name + "' is not among its Values";
      else
        config.push_back(*value);
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
  std::vector<nlohmann::json> values;
  for (size_t column : cache_column_) values.push_back(record.values[column]);
  return parameters_.config_of(values);
}

Measurement RecordedSpace::check(const Config& config) const {
  if (Measurement verdict = parameters_.check(config); !verdict.ok()) return verdict;
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
    const bool accepted = parameters_.broken_condition(c) == nullptr;
    const Record* r = record(c);
    if (accepted && !r) ++out.accepted_unrecorded;
    if (accepted && r && r->outcome == Outcome::invalid) ++out.accepted_recorded_invalid;
    if (!accepted && r && r->outcome != Outcome::invalid) ++out.rejected_recorded;
  });
  return out;
}

}  // namespace aoe::replay
