// The plugin loader: opens a library, checks its entry points, descriptor and
// SDK version, initialises it, and indexes its components by kind and name.
#include "plugin_loader.h"

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <set>
#include <stdexcept>
#include <system_error>
#include <type_traits>

#include "aoe/sdk/error.h"
#include "aoe/sdk/host.h"
#include "lower_case.h"

namespace aoe::host {
namespace {

using aoe::sdk::Error;
using aoe::sdk::StatusCode;

// A 1.0 struct ends at its last 1.0 field, however much later minors append,
// so these stay the smallest sizes a host accepts.
#define AOE_SIZE_1_0(type, last_field) static_cast<uint32_t>(offsetof(type, last_field) + sizeof(type::last_field))
constexpr uint32_t kDescriptorVersionEnd = AOE_SIZE_1_0(aoe_plugin_descriptor, sdk_minor);
constexpr uint32_t kDescriptor_1_0 = AOE_SIZE_1_0(aoe_plugin_descriptor, components);
constexpr uint32_t kComponent_1_0 = AOE_SIZE_1_0(aoe_component, vtable);
constexpr uint32_t kDeviceVtable_1_0 = AOE_SIZE_1_0(aoe_device_vtable, release_candidate);
constexpr uint32_t kSearcherVtable_1_0 = AOE_SIZE_1_0(aoe_searcher_vtable, observe);
constexpr uint32_t kTuningModeVtable_1_0 = AOE_SIZE_1_0(aoe_tuning_mode_vtable, run);
#undef AOE_SIZE_1_0

// Why a library is turned away; caught once, in load_file.
class Refused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A file, or the directory it lies in, that a user other than its owner (or
// another user than this one and root owns) may change: refused, naming it.
void check_not_writable_by_others(const std::filesystem::path& file) {
  const auto dir = std::filesystem::absolute(file).parent_path();
  for (const auto& path : {file, dir}) {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) continue;  // open_library reports a missing file
    // A sticky directory (/tmp) lets no one else replace this user's file.
    const bool world_writable = (st.st_mode & S_IWOTH) && !(S_ISDIR(st.st_mode) && (st.st_mode & S_ISVTX));
    const bool foreign_owner = st.st_uid != 0 && st.st_uid != ::geteuid();
    if (world_writable || foreign_owner)
      throw Refused(path.string() + (world_writable ? " is writable by every user" : " belongs to another user") +
                    ", so its code could be anyone's: fix its permissions (chmod o-w, chown), or pass "
                    "--allow_insecure_plugins true to load it anyway");
  }
}

struct EntryPoints {
  aoe_plugin_query_fn query = nullptr;
  aoe_plugin_init_fn init = nullptr;
};

std::string sdk_version(unsigned major, unsigned minor) {
  return std::to_string(major) + "." + std::to_string(minor);
}

std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

const char* text_or_empty(const char* text) { return text ? text : ""; }

boost::dll::shared_library open_library(const std::filesystem::path& file) {
  boost::dll::shared_library library;
  boost::dll::fs::error_code ec;
  library.load(boost::dll::fs::path(file.native()), boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local,
               ec);
  if (ec) {
    // Boost.DLL keeps only an errno-style code; the loader's own text says what is wrong.
    const char* why = dlerror();
    throw Refused(std::string("not a loadable shared library: ") + (why ? why : ec.message()));
  }
  return library;
}

template <class Fn>
Fn entry_point(const boost::dll::shared_library& library, const char* symbol) {
  return &library.get<std::remove_pointer_t<Fn>>(symbol);
}

EntryPoints resolve_entry_points(LoadedPlugin& plugin) {
  std::vector<std::string> missing;
  for (const char* symbol : {AOE_PLUGIN_QUERY_SYMBOL, AOE_PLUGIN_INIT_SYMBOL, AOE_PLUGIN_CREATE_SYMBOL,
                             AOE_PLUGIN_SHUTDOWN_SYMBOL})
    if (!plugin.library.has(symbol)) missing.emplace_back(symbol);
  if (!missing.empty())
    throw Refused((missing.size() == 1 ? "missing entry point " : "missing entry points ") + join(missing, ", ") +
                  "; was it built with the aoe SDK?");
  plugin.create = entry_point<aoe_plugin_create_fn>(plugin.library, AOE_PLUGIN_CREATE_SYMBOL);
  plugin.shutdown = entry_point<aoe_plugin_shutdown_fn>(plugin.library, AOE_PLUGIN_SHUTDOWN_SYMBOL);
  return {entry_point<aoe_plugin_query_fn>(plugin.library, AOE_PLUGIN_QUERY_SYMBOL),
          entry_point<aoe_plugin_init_fn>(plugin.library, AOE_PLUGIN_INIT_SYMBOL)};
}

// Only the first three descriptor fields are read before the version is
// known to match: they are the ones no SDK version may move.
void check_sdk_version(const aoe_plugin_descriptor* d) {
  if (!d) throw Refused("aoe_plugin_query returned no descriptor; was it built with the aoe SDK?");
  if (d->struct_size < kDescriptorVersionEnd)
    throw Refused("its descriptor is " + std::to_string(d->struct_size) +
                  " bytes, too small to hold an SDK version; was it built with the aoe SDK?");
  const std::string plugin_sdk = sdk_version(d->sdk_major, d->sdk_minor);
  const std::string host_sdk = sdk_version(AOE_SDK_VERSION_MAJOR, AOE_SDK_VERSION_MINOR);
  if (d->sdk_major != AOE_SDK_VERSION_MAJOR)
    throw Refused("built against aoe SDK " + plugin_sdk + ", this host has SDK " + host_sdk +
                  ": rebuild the plugin against SDK " + std::to_string(AOE_SDK_VERSION_MAJOR) + ".x");
  if (d->sdk_minor > AOE_SDK_VERSION_MINOR)
    throw Refused("built against aoe SDK " + plugin_sdk + ", newer than this host's " + host_sdk +
                  ": upgrade aoe-host");
  if (d->struct_size < kDescriptor_1_0)
    throw Refused("its descriptor is " + std::to_string(d->struct_size) + " bytes, smaller than SDK 1.0's " +
                  std::to_string(kDescriptor_1_0) + "; rebuild the plugin against the aoe SDK");
}

uint32_t vtable_size_1_0(int32_t kind) {
  switch (kind) {
    case AOE_KIND_DEVICE: return kDeviceVtable_1_0;
    case AOE_KIND_SEARCHER: return kSearcherVtable_1_0;
    case AOE_KIND_TUNING_MODE: return kTuningModeVtable_1_0;
  }
  return 0;
}

Component read_component(const aoe_component& c, size_t index) {
  const std::string which = "component #" + std::to_string(index);
  if (c.struct_size < kComponent_1_0)
    throw Refused(which + " is " + std::to_string(c.struct_size) + " bytes, smaller than SDK 1.0's " +
                  std::to_string(kComponent_1_0) + "; rebuild the plugin against the aoe SDK");
  if (vtable_size_1_0(c.kind) == 0)
    throw Refused(which + " has unknown kind " + std::to_string(c.kind) +
                  "; this host knows device, searcher and tuning mode");
  if (!c.name || !*c.name) throw Refused(which + " (a " + kind_name(c.kind) + ") has no name");
  const std::string label = std::string(kind_name(c.kind)) + " '" + c.name + "'";
  if (!c.vtable) throw Refused(label + " has no function table");
  const uint32_t table_size = *static_cast<const uint32_t*>(c.vtable);  // every table starts with struct_size
  if (table_size < vtable_size_1_0(c.kind))
    throw Refused(label + " has a function table of " + std::to_string(table_size) + " bytes, smaller than SDK 1.0's " +
                  std::to_string(vtable_size_1_0(c.kind)) + "; rebuild the plugin against the aoe SDK");
  return {c.kind, c.name, text_or_empty(c.summary), c.vtable, nullptr};
}

// Steps through the array by the plugin's struct_size, so a plugin of an
// older minor (smaller components) reads right in a newer host.
std::vector<Component> read_components(const aoe_plugin_descriptor& d) {
  if (d.component_count > 0 && !d.components)
    throw Refused("its descriptor counts " + std::to_string(d.component_count) + " components but lists none");
  std::vector<Component> out;
  std::set<std::pair<int32_t, std::string>> seen;
  const auto* bytes = reinterpret_cast<const unsigned char*>(d.components);
  const size_t stride = d.component_count > 0 ? d.components[0].struct_size : 0;
  for (size_t i = 0; i < d.component_count; ++i) {
    Component c = read_component(*reinterpret_cast<const aoe_component*>(bytes + i * stride), i);
    if (!seen.insert({c.kind, c.name}).second)
      throw Refused(std::string(kind_name(c.kind)) + " '" + c.name + "' is registered twice in this library");
    out.push_back(std::move(c));
  }
  return out;
}

void describe(LoadedPlugin& plugin, const aoe_plugin_descriptor& d) {
  if (!d.name || !*d.name) throw Refused("its descriptor has no plugin name; was it built with aoe_add_plugin()?");
  plugin.name = d.name;
  plugin.version = text_or_empty(d.version);
  plugin.summary = text_or_empty(d.summary);
  plugin.sdk_major = d.sdk_major;
  plugin.sdk_minor = d.sdk_minor;
  plugin.components = read_components(d);
  for (auto& c : plugin.components) c.plugin = &plugin;
}

void initialise(LoadedPlugin& plugin, aoe_plugin_init_fn init, const aoe_host_services* services) {
  if (!services) throw Refused("the host has no services table for plugin '" + plugin.name + "'");
  plugin.services = services;
  aoe_status* status = init(services);
  if (!status) return;
  const std::string message = text_or_empty(services->status_message(status));
  services->status_destroy(status);
  throw Refused("init failed: " + message);
}

}  // namespace

const char* kind_name(int32_t kind) {
  switch (kind) {
    case AOE_KIND_DEVICE: return "device";
    case AOE_KIND_SEARCHER: return "searcher";
    case AOE_KIND_TUNING_MODE: return "tuning mode";
  }
  return "unknown kind";
}

PluginRegistry::PluginRegistry(ServicesFor services) : services_(std::move(services)) {}

PluginRegistry::~PluginRegistry() {
  for (auto it = plugins_.rbegin(); it != plugins_.rend(); ++it) (*it)->shutdown();
  by_name_.clear();
  while (!plugins_.empty()) plugins_.pop_back();  // unload in reverse load order
}

void PluginRegistry::load_directory(const std::filesystem::path& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return;  // whether that matters is the caller's call
  std::vector<std::filesystem::path> libraries;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".so" && it->is_regular_file()) libraries.push_back(it->path());
  if (ec) {
    refusals_.push_back({dir, "cannot list the plugin directory: " + ec.message() + "; check its permissions"});
    return;
  }
  std::sort(libraries.begin(), libraries.end());
  for (const auto& library : libraries) load_file(library);
}

bool PluginRegistry::load_file(const std::filesystem::path& file) {
  // Outside the try, so an exception thrown by plugin code is read before its library unloads.
  auto plugin = std::make_unique<LoadedPlugin>();
  std::string refusal;
  try {
    if (!allow_insecure_) check_not_writable_by_others(file);
    plugin->path = file;
    plugin->library = open_library(file);
    for (const auto& loaded : plugins_)
      if (loaded->library.native() == plugin->library.native()) return true;  // init must run once per library
    const EntryPoints entry = resolve_entry_points(*plugin);
    const aoe_plugin_descriptor* descriptor = entry.query();
    check_sdk_version(descriptor);
    describe(*plugin, *descriptor);
    initialise(*plugin, entry.init, services_(plugin->name));
    for (const auto& c : plugin->components) by_name_[{c.kind, c.name}].push_back(&c);
    plugins_.push_back(std::move(plugin));
    return true;
  } catch (const Refused& refused) {
    refusal = refused.what();
  } catch (const std::exception& e) {
    refusal = std::string("loading it threw: ") + e.what() + "; plugin entry points must return statuses, not throw";
  } catch (...) {
    refusal = "loading it threw an unknown exception; plugin entry points must return statuses, not throw";
  }
  refusals_.push_back({file, refusal});
  return false;  // the library unloads as `plugin` goes
}

// AOE's users write RL, GA or Ascend910 where the plugins say rl, ga,
// ascend910: a name that matches one component ignoring case is that one.
std::string PluginRegistry::canonical_name(int32_t kind, const std::string& name) const {
  if (by_name_.count({kind, name})) return name;
  std::vector<std::string> matches;
  for (const auto& known : names(kind))
    if (lower_case(known) == lower_case(name)) matches.push_back(known);
  return matches.size() == 1 ? matches.front() : name;
}

const Component& PluginRegistry::find(int32_t kind, const std::string& name) const {
  const std::string kind_text = kind_name(kind);
  const auto it = by_name_.find({kind, canonical_name(kind, name)});
  if (it == by_name_.end()) {
    const auto available = names(kind);
    if (available.empty())
      throw Error(StatusCode::not_found, "no " + kind_text + " named '" + name + "': no " + kind_text +
                                             " plugin is loaded; pass --plugin-dir to point at them");
    throw Error(StatusCode::not_found,
                "no " + kind_text + " named '" + name + "'; available " + kind_text + "s: " + join(available, ", "));
  }
  const auto& providers = it->second;
  if (providers.size() > 1) {
    std::vector<std::string> paths;
    for (const Component* c : providers) paths.push_back(c->plugin->path.string());
    const std::string who = providers.size() == 2 ? "two plugins: " + paths[0] + " and " + paths[1]
                                                  : std::to_string(paths.size()) + " plugins: " + join(paths, ", ");
    throw Error(StatusCode::invalid_argument, kind_text + " '" + name + "' is provided by " + who +
                                                  "; remove one or pass --plugin-dir to choose");
  }
  return *providers.front();
}

std::vector<std::string> PluginRegistry::names(int32_t kind) const {
  std::vector<std::string> out;
  for (const auto& [key, providers] : by_name_)
    if (key.first == kind) out.push_back(key.second);  // the map keeps them sorted and unique
  return out;
}

void* PluginRegistry::create(const Component& component, const std::string& options_json) const {
  const LoadedPlugin& plugin = *component.plugin;
  const std::string what =
      std::string("cannot create ") + kind_name(component.kind) + " '" + component.name + "' from " + plugin.path.string();
  void* instance = nullptr;
  aoe::sdk::Host(plugin.services)
      .check(plugin.create(component.name.c_str(), options_json.empty() ? nullptr : options_json.c_str(), &instance),
             what);
  if (!instance) throw Error(StatusCode::internal, what + ": the plugin returned nothing; report it to its author");
  return instance;
}

}  // namespace aoe::host
