#include "engine.h"

#include "aoe/sdk/error.h"
#include "plugin_search.h"
#include "settings.h"

namespace aoe::host {

Engine::Engine(Key key)
    : key_(std::move(key)),
      services_([this] {
        const auto* flag = cancel_.load();
        return flag && flag->load();
      }),
      registry_([this](const std::string& name) { return services_.table_for(name); }) {}

std::shared_ptr<Engine> Engine::acquire(const Settings& settings, const std::filesystem::path& installed_plugins) {
  static std::mutex mutex;
  static std::weak_ptr<Engine> live;
  const Key key{plugin_dirs(settings, installed_plugins), settings.boolean("allow_insecure_plugins")};
  std::lock_guard<std::mutex> lock(mutex);
  if (auto engine = live.lock()) {
    if (engine->key_ == key) return engine;
    throw aoe::sdk::Error(aoe::sdk::StatusCode::invalid_argument,
                          "plugin_dir / allow_insecure_plugins (" + settings.source("plugin_dir") +
                              "): another session of this process loaded plugins from other folders; plugins load "
                              "once per process, so give every session the same ones");
  }
  std::shared_ptr<Engine> engine(new Engine(key));
  load_plugins(engine->registry_, settings, installed_plugins);
  for (const auto& refusal : engine->registry_.refusals())
    spdlog::warn("plugin {} refused: {}", refusal.path.string(), refusal.reason);
  live = engine;
  return engine;
}

Engine::Run::Run(Engine& engine, const std::atomic<bool>& cancel, HostServices::ProgressListener progress)
    : engine_(engine), lock_(engine.run_mutex_) {
  engine_.cancel_.store(&cancel);
  engine_.services_.set_progress_listener(std::move(progress));
}

Engine::Run::~Run() {
  engine_.services_.set_progress_listener(nullptr);
  engine_.cancel_.store(nullptr);
}

}  // namespace aoe::host
