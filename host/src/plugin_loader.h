// Finds plugin libraries, checks their SDK version, initialises them, and
// keeps every loaded library open until the registry is destroyed.
#pragma once

#include <boost/dll/shared_library.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "aoe/abi/aoe.h"

namespace aoe::host {

struct LoadedPlugin;

// One thing a loaded library offers (a device target, a searcher, a tuning mode).
struct Component {
  int32_t kind = 0;  // AOE_KIND_*
  std::string name;
  std::string summary;
  const void* vtable = nullptr;
  const LoadedPlugin* plugin = nullptr;
};

struct LoadedPlugin {
  std::filesystem::path path;
  std::string name;
  std::string version;
  std::string summary;
  uint16_t sdk_major = 0;
  uint16_t sdk_minor = 0;
  boost::dll::shared_library library;
  const aoe_host_services* services = nullptr;  // the table it was initialised with
  aoe_plugin_create_fn create = nullptr;
  aoe_plugin_shutdown_fn shutdown = nullptr;
  std::vector<Component> components;
};

// A library that was not loaded, and why, in one line.
struct Refusal {
  std::filesystem::path path;
  std::string reason;

  std::string message() const { return path.string() + ": " + reason; }
};

const char* kind_name(int32_t kind);  // "device", "searcher", "tuning mode"

class PluginRegistry {
 public:
  // Gives each plugin its own host services table (its name routes its logs).
  using ServicesFor = std::function<const aoe_host_services*(const std::string& plugin_name)>;

  explicit PluginRegistry(ServicesFor services);
  ~PluginRegistry();  // shuts every plugin down, then unloads
  PluginRegistry(const PluginRegistry&) = delete;
  PluginRegistry& operator=(const PluginRegistry&) = delete;

  // Loads every shared library in dir (not recursive, in name order). A bad
  // library becomes a Refusal; the rest still load.
  void load_directory(const std::filesystem::path& dir);
  // Loading code from a file or a directory other users may write lets them
  // run code as this user: such plugins are refused (as ld.so ignores such
  // paths for privileged programs) unless allowed here (--allow_insecure_plugins).
  void allow_insecure(bool allowed) { allow_insecure_ = allowed; }
  // Loads one library; false (and a Refusal) when it is refused.
  bool load_file(const std::filesystem::path& file);

  const std::vector<std::unique_ptr<LoadedPlugin>>& plugins() const { return plugins_; }
  const std::vector<Refusal>& refusals() const { return refusals_; }

  // The component of that kind and name. Throws aoe::sdk::Error: not_found
  // (listing what there is), or invalid_argument when two libraries provide
  // the name (naming both paths).
  // The name matches ignoring case when exactly one component's does.
  const Component& find(int32_t kind, const std::string& name) const;
  // name as the component spells it, when one matches it ignoring case; else name.
  std::string canonical_name(int32_t kind, const std::string& name) const;
  // Every component name of a kind, sorted.
  std::vector<std::string> names(int32_t kind) const;

  // Makes an instance of a component; the caller destroys it through its vtable.
  void* create(const Component& component, const std::string& options_json) const;

 private:
  ServicesFor services_;
  std::vector<std::unique_ptr<LoadedPlugin>> plugins_;
  std::vector<Refusal> refusals_;
  bool allow_insecure_ = false;
  // name -> the components of that name across libraries, per kind
  std::map<std::pair<int32_t, std::string>, std::vector<const Component*>> by_name_;
};

}  // namespace aoe::host
