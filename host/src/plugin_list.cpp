#include "plugin_list.h"

#include <iomanip>

#include "plugin_loader.h"

namespace aoe::host {

void print_plugins(const PluginRegistry& registry, std::ostream& out, bool as_json) {
  if (as_json) {
    out << plugins_json(registry).dump(2) << "\n";
    return;
  }
  out << std::left << std::setw(14) << "NAME" << std::setw(13) << "KIND" << std::setw(9) << "VERSION" << std::setw(5)
      << "SDK" << "  " << std::setw(12) << "PLUGIN" << "PATH\n";
  for (const auto& plugin : registry.plugins()) {
    const std::string sdk = std::to_string(plugin->sdk_major) + "." + std::to_string(plugin->sdk_minor);
    for (const auto& c : plugin->components)
      out << std::left << std::setw(14) << c.name << std::setw(13) << kind_name(c.kind) << std::setw(9)
          << plugin->version << std::setw(5) << sdk << "  " << std::setw(12) << plugin->name << plugin->path.string()
          << "\n"
          << std::setw(14) << "" << c.summary << "\n";
  }
  for (const auto& refusal : registry.refusals())
    out << "refused " << refusal.path.string() << ": " << refusal.reason << "\n";
}

nlohmann::json plugins_json(const PluginRegistry& registry) {
  nlohmann::json components = nlohmann::json::array(), refused = nlohmann::json::array();
  for (const auto& plugin : registry.plugins())
    for (const auto& c : plugin->components)
      components.push_back({{"name", c.name},
                            {"kind", kind_name(c.kind)},
                            {"summary", c.summary},
                            {"plugin", plugin->name},
                            {"version", plugin->version},
                            {"sdk", std::to_string(plugin->sdk_major) + "." + std::to_string(plugin->sdk_minor)},
                            {"path", plugin->path.string()}});
  for (const auto& refusal : registry.refusals()) refused.push_back({{"path", refusal.path.string()}, {"reason", refusal.reason}});
  return {{"components", components}, {"refused", refused}};
}

}  // namespace aoe::host
