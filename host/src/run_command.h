// `aoe-host run` and the C API's run: the whole model on a device with the
// configs the operator bank holds, timed end to end; optionally checked.
// Both run run_model; the command adds the .npz files and the printout.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "npz_file.h"

namespace aoe::host {

class HostServices;
class PluginRegistry;
class Settings;
struct ModelInMemory;

// The model's inputs a caller hands over, by name.
struct GivenInputs {
  std::string source;  // where they come from, for messages: the .npz file, "the call"
  std::map<std::string, FloatArray> arrays;
  bool draw_missing = true;  // an input not given is drawn from --seed; false: it is an error
};

struct ModelRunOutcome {
  int exit_code = 0;      // aoe-host's: exit_ok, or exit_tuning_failed when --check finds a mismatch
  nlohmann::json report;  // the run report, as written to report_path
  std::filesystem::path report_path;
  // The model's outputs in its order; empty when the device models time only.
  std::vector<std::pair<std::string, FloatArray>> outputs;
};

// Runs the model (--model, or in_memory) once untimed and --iterations timed
// and writes the run report. Throws ExitError naming the input or op for
// what stops it. `tune_misses` runs operator tuning on the same model and
// bank (--tune_on_miss) and returns its exit code; another code than
// exit_ok stops the run with it.
ModelRunOutcome run_model(const Settings& settings, PluginRegistry& registry, HostServices& services,
                          const std::function<int()>& tune_misses, GivenInputs given,
                          const ModelInMemory* in_memory = nullptr);

// `aoe-host run`: --inputs, run_model, --outputs and the printout. Returns the exit code.
int run_model_command(const Settings& settings, PluginRegistry& registry, HostServices& services,
                      const std::function<int()>& tune_misses);

}  // namespace aoe::host
