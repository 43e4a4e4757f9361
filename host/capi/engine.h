// The plugins a process loads once, shared by every session of the C API.
// A plugin library keeps the host services it was initialised with in its
// own statics, so a second registry in the same process would take them over
// from the first: one registry serves every session, one tuning at a time.
#pragma once

#include <atomic>
#include <filesystem>
#include <memory>
#include <mutex>
#include <vector>

#include "host_services.h"
#include "plugin_loader.h"

namespace aoe::host {

class Settings;

class Engine {
 public:
  // The live engine, or a new one loading plugins as settings say. Throws
  // aoe::sdk::Error(invalid_argument) when settings name other plugin
  // folders than the live engine loaded.
  static std::shared_ptr<Engine> acquire(const Settings& settings, const std::filesystem::path& installed_plugins);

  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  PluginRegistry& registry() { return registry_; }

  // Holds the engine for one tuning: the services answer `cancelled` from
  // this flag and report progress to this listener until it goes.
  class Run {
   public:
    Run(Engine& engine, const std::atomic<bool>& cancel, HostServices::ProgressListener progress);
    ~Run();
    Run(const Run&) = delete;
    Run& operator=(const Run&) = delete;
    HostServices& services() { return engine_.services_; }

   private:
    Engine& engine_;
    std::lock_guard<std::mutex> lock_;
  };

 private:
  struct Key {
    std::vector<std::filesystem::path> dirs;
    bool allow_insecure = false;
    bool operator==(const Key&) const = default;
  };
  explicit Engine(Key key);

  Key key_;
  std::mutex run_mutex_;
  std::atomic<const std::atomic<bool>*> cancel_{nullptr};
  HostServices services_;
  PluginRegistry registry_;  // after services_: plugins are shut down before their services go
};

}  // namespace aoe::host
