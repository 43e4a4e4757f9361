// A C API session: options resolved as aoe-host resolves its command line,
// the process's plugins, and tunings and model runs by the same run_tuning
// and run_model as aoe-host's.
#pragma once

#include <atomic>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "engine.h"
#include "run_command.h"
#include "settings.h"
#include "tuning_run.h"

namespace aoe::host {

class Session {
 public:
  using Options = std::map<std::string, std::string>;

  // Throws aoe::sdk::Error naming the option that is unknown or malformed,
  // or the device no plugin provides.
  Session(Options options, const std::filesystem::path& installed_plugins);

  // mode empty: the options' plugin / job_type. Throws ExitError or
  // aoe::sdk::Error when no tuning could run.
  TuningOutcome tune_file(const std::string& mode, const std::filesystem::path& model);
  TuningOutcome tune_bytes(const std::string& mode, const std::string& name, std::string_view bytes);

  // Runs the model as `aoe-host run` does, with the session's options; the
  // inputs not given are drawn from its seed. Throws ExitError or
  // aoe::sdk::Error naming the input or op when it cannot run.
  ModelRunOutcome run_file(const std::filesystem::path& model, GivenInputs inputs);
  ModelRunOutcome run_bytes(const std::string& name, std::string_view bytes, GivenInputs inputs);

  // Lock-free: from any thread or a signal handler.
  void cancel() noexcept { cancel_.store(true); }
  void set_progress(HostServices::ProgressListener listener) { progress_ = std::move(listener); }

  std::string plugins_json() const;
  // The bank entries of kind whose key's signature is signature, as a JSON array.
  std::string bank_entries(const std::string& kind, const std::string& signature) const;

 private:
  TuningOutcome tune(Options options, const ModelInMemory* in_memory);
  ModelRunOutcome run(Options options, GivenInputs inputs, const ModelInMemory* in_memory);

  Options options_;
  std::filesystem::path config_file_;
  Settings settings_;
  std::shared_ptr<Engine> engine_;
  std::atomic<bool> cancel_{false};
  static_assert(std::atomic<bool>::is_always_lock_free, "cancel must be safe in a signal handler");
  HostServices::ProgressListener progress_;
};

}  // namespace aoe::host
