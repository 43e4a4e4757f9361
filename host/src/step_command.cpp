#include "step_command.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include "command_line.h"
#include "exit_error.h"
#include "run_setup.h"
#include "step_kernels.h"
#include "step_precision.h"
#include "training_step.h"

namespace aoe::host {
namespace {

// A profile's kernels by op type: the second column of each row after the header.
std::map<std::string, size_t> profile_counts(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw ExitError(exit_usage, "cannot read the profile " + file.string());
  std::map<std::string, size_t> counts;
  std::string line;
  std::getline(in, line);
  if (line.rfind("op_name,op_type", 0) != 0)
    throw ExitError(exit_usage, file.string() + ": not a kernel profile (its header is not op_name,op_type,...)");
  while (std::getline(in, line)) {
    const auto first = line.find(',');
    if (first == std::string::npos) continue;
    const auto second = line.find(',', first + 1);
    ++counts[line.substr(first + 1, second == std::string::npos ? std::string::npos : second - first - 1)];
  }
  return counts;
}

}  // namespace

int run_step_command(const std::vector<std::string>& arguments, const Settings& settings, std::ostream& out) {
  const aoe::sdk::Graph model = load_model(settings);
  aoe::training::StepOptions options;
  aoe::training::TrainingStep step;
  std::vector<aoe::training::StepKernel> kernels;
  try {
    options.optimizer = aoe::training::optimizer_from_string(settings.text("optimizer"));
    options.mixed = aoe::training::mixed_precision(settings.text("training_precision"), nlohmann::json::object());
    step = aoe::training::derive_training_step(model, options);
    kernels = aoe::training::fuse_step(step, aoe::training::every_follower());
  } catch (const aoe::sdk::Error& e) {
    throw ExitError(exit_usage, e.what());
  }
  const auto counts = aoe::training::kernel_counts(kernels);
  std::vector<std::map<std::string, size_t>> profiles;
  for (const auto& file : arguments) profiles.push_back(profile_counts(file));

  std::vector<std::string> names;
  for (const auto& [name, n] : counts) names.push_back(name);
  for (const auto& p : profiles)
    for (const auto& [name, n] : p)
      if (!counts.count(name) && std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  auto count_in = [](const std::map<std::string, size_t>& m, const std::string& name) {
    const auto it = m.find(name);
    return it == m.end() ? size_t{0} : it->second;
  };
  // Most frequent first, by the first profile where there is one.
  std::stable_sort(names.begin(), names.end(), [&](const std::string& a, const std::string& b) {
    const auto& key = profiles.empty() ? counts : profiles.front();
    const auto ka = std::make_pair(count_in(key, a), count_in(counts, a));
    const auto kb = std::make_pair(count_in(key, b), count_in(counts, b));
    return ka > kb;
  });

  out << "training step of " << model.name << ": " << aoe::training::to_string(options.optimizer) << ", "
      << (options.mixed ? "mixed precision" : "fp32") << ", fused as CANN fuses it\n";
  char line[256];
  std::snprintf(line, sizeof line, "%-46s %8s", "kernel", "step");
  out << line;
  for (const auto& file : arguments) out << "  " << std::filesystem::path(file).filename().string();
  out << '\n';
  std::vector<size_t> totals(profiles.size() + 1, 0);
  for (const auto& name : names) {
    std::snprintf(line, sizeof line, "%-46s %8zu", name.c_str(), count_in(counts, name));
    out << line;
    totals[0] += count_in(counts, name);
    for (size_t p = 0; p < profiles.size(); ++p) {
      std::snprintf(line, sizeof line, "  %8zu", count_in(profiles[p], name));
      out << line;
      totals[p + 1] += count_in(profiles[p], name);
    }
    out << '\n';
  }
  std::snprintf(line, sizeof line, "%-46s %8zu", "total", totals[0]);
  out << line;
  for (size_t p = 0; p < profiles.size(); ++p) {
    std::snprintf(line, sizeof line, "  %8zu", totals[p + 1]);
    out << line;
  }
  out << '\n';
  return exit_ok;
}

}  // namespace aoe::host
