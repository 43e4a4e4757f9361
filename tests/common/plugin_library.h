// A plugin library opened as aoe-host opens it (dlopen, local symbols), its
// entry points called through the C ABI: a plugin's C-table tests call the
// built module itself, not a copy of its registration compiled into the test.
#pragma once

#include <dlfcn.h>

#include <stdexcept>
#include <string>

#include "aoe/abi/aoe.h"

namespace aoe::test {

class PluginLibrary {
 public:
  // Kept open for the process: what it made may outlive any one test.
  explicit PluginLibrary(const char* path) : handle_(dlopen(path, RTLD_NOW | RTLD_LOCAL)) {
    if (!handle_) throw std::runtime_error(std::string("cannot open plugin ") + path + ": " + dlerror());
    init_ = entry<decltype(init_)>("aoe_plugin_init");
    query_ = entry<decltype(query_)>("aoe_plugin_query");
    create_ = entry<decltype(create_)>("aoe_plugin_create");
    shutdown_ = entry<decltype(shutdown_)>("aoe_plugin_shutdown");
  }
  PluginLibrary(const PluginLibrary&) = delete;
  PluginLibrary& operator=(const PluginLibrary&) = delete;

  aoe_status* init(const aoe_host_services* host) const { return init_(host); }
  const aoe_plugin_descriptor* query() const { return query_(); }
  aoe_status* create(const char* component, const char* options_json, void** out) const {
    return create_(component, options_json, out);
  }
  void shutdown() const { shutdown_(); }

 private:
  template <class F>
  F entry(const char* name) {
    void* f = dlsym(handle_, name);
    if (!f) throw std::runtime_error(std::string("the plugin has no entry point ") + name);
    return reinterpret_cast<F>(f);
  }

  void* handle_;
  aoe_status* (*init_)(const aoe_host_services*) = nullptr;
  const aoe_plugin_descriptor* (*query_)() = nullptr;
  aoe_status* (*create_)(const char*, const char*, void**) = nullptr;
  void (*shutdown_)() = nullptr;
};

#ifdef AOE_PLUGIN_FILE
// The plugin the test is of, as its build put it beside aoe-host's others.
inline const PluginLibrary& tested_plugin() {
  static const PluginLibrary library(AOE_PLUGIN_FILE);
  return library;
}
#endif

}  // namespace aoe::test
