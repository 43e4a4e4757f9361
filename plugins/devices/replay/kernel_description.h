// A kernel's tuning problem as the BAT/T4 description (`*.kernel.json`)
// states it: its parameters with their values and defaults, and the
// conditions a configuration must meet.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "condition.h"

namespace aoe::replay {

struct KernelParameter {
  std::string name;
  std::vector<nlohmann::json> values;
  std::optional<nlohmann::json> default_value;
};

struct KernelDescription {
  std::filesystem::path path;
  std::string benchmark_name;  // General.BenchmarkName
  std::string kernel_name;     // KernelSpecification.KernelName, when given
  std::vector<KernelParameter> parameters;
  std::vector<Condition> conditions;

  std::vector<std::string> names() const;
};

// Every error names the file, and the parameter or condition at fault.
KernelDescription read_kernel_description(const std::filesystem::path& file);
// The same from the file's already-parsed document: a T1 problem holds one.
KernelDescription read_kernel_description(const nlohmann::ordered_json& doc, const std::filesystem::path& file);

}  // namespace aoe::replay
