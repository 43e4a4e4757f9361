#include "plugin_search.h"

#include <spdlog/spdlog.h>

#include "plugin_loader.h"
#include "settings.h"

namespace aoe::host {

std::vector<std::filesystem::path> plugin_dirs(const Settings& settings, const std::filesystem::path& installed) {
  auto dirs = settings.paths("plugin_dir");
  dirs.push_back(installed.lexically_normal());
  return dirs;
}

void load_plugins(PluginRegistry& registry, const Settings& settings, const std::filesystem::path& installed) {
  registry.allow_insecure(settings.boolean("allow_insecure_plugins"));
  for (const auto& dir : plugin_dirs(settings, installed)) {
    if (std::filesystem::is_directory(dir))
      registry.load_directory(dir);
    else if (settings.has("plugin_dir"))
      spdlog::warn("plugin directory {} does not exist", dir.string());
  }
}

}  // namespace aoe::host
