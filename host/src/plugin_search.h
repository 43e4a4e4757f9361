// Which folders plugins are loaded from: --plugin_dir and AOE_PLUGIN_PATH
// first, then the installed plugins, in that order.
#pragma once

#include <filesystem>
#include <vector>

namespace aoe::host {

class PluginRegistry;
class Settings;

// `installed`: the install tree's plugin folder, found from the loading
// binary's own place (aoe-host's bin/, libaoe's lib/).
std::vector<std::filesystem::path> plugin_dirs(const Settings& settings, const std::filesystem::path& installed);
// Loads every plugin of those folders; a --plugin_dir that is no folder is warned of.
void load_plugins(PluginRegistry& registry, const Settings& settings, const std::filesystem::path& installed);

}  // namespace aoe::host
