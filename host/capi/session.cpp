#include "session.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>

#include "aoe/abi/plugin.h"
#include "aoe/sdk/error.h"
#include "aoe/sdk/path_component.h"
#include "bank.h"
#include "exit_error.h"
#include "plugin_list.h"
#include "run_setup.h"

namespace aoe::host {
namespace {

using aoe::sdk::Error;
using aoe::sdk::StatusCode;

// "config" names the YAML file, as --config does on the command line.
std::filesystem::path take_config(Session::Options& options) {
  const auto it = options.find("config");
  if (it == options.end()) return {};
  std::filesystem::path file = it->second;
  options.erase(it);
  return file;
}

// aoe-host's console format, on stderr: a program's stdout stays its own.
// A program that set its own default logger keeps it.
void log_to_stderr() {
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  if (!spdlog::default_logger()->name().empty()) return;
  auto logger = spdlog::get("aoe");
  if (!logger) logger = spdlog::stderr_color_mt("aoe");
  spdlog::set_default_logger(logger);
  spdlog::set_pattern("[%H:%M:%S.%e] [%^%l%$] [%n] %v");
}

// A cancel asked of one call does not reach the next.
struct ClearCancelOnExit {
  std::atomic<bool>& flag;
  ~ClearCancelOnExit() { flag.store(false); }
};

}  // namespace

Session::Session(Options options, const std::filesystem::path& installed_plugins)
    : options_(std::move(options)),
      config_file_(take_config(options_)),
      settings_(Settings::resolve(options_, Settings::process_environment(), config_file_)) {
  // Before the plugins load: their loggers are copies of the default one.
  log_to_stderr();
  if (settings_.has("log_level")) spdlog::set_level(spdlog::level::from_str(settings_.text("log_level")));
  engine_ = Engine::acquire(settings_, installed_plugins);
  // A device no plugin has is the option's fault: say so now, not at the first tune.
  try {
    engine_->registry().find(AOE_KIND_DEVICE, settings_.text("device"));
  } catch (const Error& e) {
    throw Error(e.code(), "device '" + settings_.text("device") + "' (" + settings_.source("device") + "): " + e.what());
  }
}

TuningOutcome Session::tune_file(const std::string& mode, const std::filesystem::path& model) {
  Options options = options_;
  options.erase("singleop");
  options["model"] = model.string();
  if (!mode.empty()) options["plugin"] = mode;
  return tune(std::move(options), nullptr);
}

TuningOutcome Session::tune_bytes(const std::string& mode, const std::string& name, std::string_view bytes) {
  aoe::sdk::check_path_component(name, "model name");
  Options options = options_;
  options.erase("model");
  options.erase("singleop");
  if (!mode.empty()) options["plugin"] = mode;
  const ModelInMemory model{name, bytes};
  return tune(std::move(options), &model);
}

TuningOutcome Session::tune(Options options, const ModelInMemory* in_memory) {
  const Settings settings = Settings::resolve(options, Settings::process_environment(), config_file_);
  Engine::Run run(*engine_, cancel_, progress_);
  const ClearCancelOnExit clear{cancel_};
  return run_tuning(settings, engine_->registry(), run.services(), in_memory);
}

ModelRunOutcome Session::run_file(const std::filesystem::path& model, GivenInputs inputs) {
  Options options = options_;
  options.erase("singleop");
  options["model"] = model.string();
  return run(std::move(options), std::move(inputs), nullptr);
}

ModelRunOutcome Session::run_bytes(const std::string& name, std::string_view bytes, GivenInputs inputs) {
  aoe::sdk::check_path_component(name, "model name");
  Options options = options_;
  options.erase("model");
  options.erase("singleop");
  const ModelInMemory model{name, bytes};
  return run(std::move(options), std::move(inputs), &model);
}

ModelRunOutcome Session::run(Options options, GivenInputs inputs, const ModelInMemory* in_memory) {
  const Settings settings = Settings::resolve(options, Settings::process_environment(), config_file_);
  Engine::Run run(*engine_, cancel_, progress_);
  const ClearCancelOnExit clear{cancel_};
  // tune_on_miss: operator tuning of the same model into the same bank,
  // under this run's hold on the engine.
  const auto tune_misses = [&] {
    Options tuning = options;
    tuning["plugin"] = "opat";
    const Settings tuning_settings = Settings::resolve(tuning, Settings::process_environment(), config_file_);
    return run_tuning(tuning_settings, engine_->registry(), run.services(), in_memory).exit_code;
  };
  return run_model(settings, engine_->registry(), run.services(), tune_misses, std::move(inputs), in_memory);
}

std::string Session::plugins_json() const { return aoe::host::plugins_json(engine_->registry()).dump(); }

std::string Session::bank_entries(const std::string& kind, const std::string& signature) const {
  const auto& kinds = Bank::kinds();
  if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end())
    throw Error(StatusCode::invalid_argument, "bank kind '" + kind + "': use op, graph or gradient");
  const Bank bank = bank_root(settings_, kind);
  return bank.select_text({{"signature", signature}}, [](const std::filesystem::path&, const std::string& reason) {
    spdlog::warn("{} (left out)", reason);
  });
}

}  // namespace aoe::host
