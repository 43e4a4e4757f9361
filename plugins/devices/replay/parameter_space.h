// The tuning space of a kernel's parameters: one knob per parameter over its
// values, and the conditions a valid configuration meets. The replay device
// answers from recordings over it; the cuda device compiles over it.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "aoe/sdk/measurement.h"
#include "aoe/sdk/tuning_space.h"
#include "condition.h"
#include "kernel_description.h"

namespace aoe::replay {

class ParameterSpace {
 public:
  // The description's parameter values are the knobs' domains and its
  // conditions decide validity. Throws sdk::Error(invalid_argument) naming
  // the file when a condition reads a parameter whose values are not all numbers.
  explicit ParameterSpace(const KernelDescription& kernel);
  // The parameters alone, without conditions: every config in the domains is valid.
  ParameterSpace(std::vector<std::string> names, const std::vector<std::vector<nlohmann::json>>& domains);

  // A parameter whose values are all integers is an integer knob over
  // exactly those values, ascending; any other a categorical knob whose
  // labels are the values as written.
  const sdk::TuningSpace& space() const { return space_; }
  const std::vector<std::string>& names() const { return names_; }

  // The parameters' values of a config, as the description writes them.
  std::vector<nlohmann::json> values(const sdk::Config& config) const;
  // The values as the conditions see them (a bool is 0 or 1, a string 0).
  std::vector<Number> numbers(const sdk::Config& config) const;
  // The knob value of parameter k's value; none when it is not among its values.
  std::optional<int64_t> knob_value(size_t k, const nlohmann::json& value) const;
  // The config of the parameters' values, in names() order; none when one lies outside its domain.
  std::optional<sdk::Config> config_of(const std::vector<nlohmann::json>& values) const;

  // The first condition the config breaks, or nullptr.
  const Condition* broken_condition(const sdk::Config& config) const;
  // ok, or invalid saying which value lies outside its domain or which condition it breaks.
  sdk::Measurement check(const sdk::Config& config) const;
  // {"name": value, ...} in the parameters' order, as Kernel Tuner prints a config.
  nlohmann::ordered_json describe(const sdk::Config& config) const;

 private:
  // How one parameter's values map to its knob's values.
  struct Axis {
    std::map<std::string, int64_t> by_text;  // a value's JSON text -> the knob value
    std::vector<nlohmann::json> values;      // by position in the knob
    std::vector<Number> numbers;             // by position in the knob: what conditions see
    bool numeric = true;                     // every value a number or a bool
  };

  void build_knobs(const std::vector<std::vector<nlohmann::json>>& domains);
  size_t position(size_t k, int64_t knob_value) const;

  std::vector<std::string> names_;
  std::vector<Condition> conditions_;
  sdk::TuningSpace space_;
  std::vector<Axis> axes_;
};

}  // namespace aoe::replay
