// One tuning run from settings to result file: model in, device, tuning mode
// and searchers composed, report out. aoe-host's tuning and the C API's
// both run through run_tuning.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <string_view>

namespace aoe::host {

class HostServices;
class PluginRegistry;
class Settings;

// An ONNX model handed over as bytes rather than named by --model.
struct ModelInMemory {
  std::string name;  // the tuning's name, as a file's stem would be
  std::string_view bytes;
};

struct TuningOutcome {
  int exit_code = 0;                 // aoe-host's exit code for the run
  nlohmann::json result;             // the result file's content: [{"basic": ...}, {"OPAT": ...}]
  std::filesystem::path result_file;
};

// Throws ExitError for what stops the run before the tuning mode reports;
// the result then holds what was written by then ("tuning failed" with the
// error when the mode itself failed). Stops early when services say cancelled.
TuningOutcome run_tuning(const Settings& settings, PluginRegistry& registry, HostServices& services,
                         const ModelInMemory* in_memory = nullptr);

}  // namespace aoe::host
