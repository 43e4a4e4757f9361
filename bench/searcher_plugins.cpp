#include "searcher_plugins.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>

#include "aoe/sdk/host.h"

namespace aoe::bench {
namespace {

aoe_host_services bench_services() {
  aoe_host_services s{};
  s.struct_size = sizeof s;
  s.log = [](void*, int32_t level, const char* message) {
    if (level >= AOE_LOG_WARN) std::fprintf(stderr, "plugin: %s\n", message);
  };
  s.progress = [](void*, const char*, uint64_t, uint64_t, const char*) {};
  s.cancelled = [](void*) -> int32_t { return 0; };
  s.status_create = [](void*, int32_t code, const char* message) { return new aoe_status{code, message}; };
  s.status_code = [](const aoe_status* status) { return status->code; };
  s.status_message = [](const aoe_status* status) { return status->message.c_str(); };
  s.status_destroy = [](aoe_status* status) { delete status; };
  s.bank_lookup = [](void*, const char*, aoe_sink*, int32_t*) {
    return new aoe_status{AOE_STATUS_UNSUPPORTED, "the bench has no knowledge bank"};
  };
  s.bank_record = [](void*, const char*, int32_t*) {
    return new aoe_status{AOE_STATUS_UNSUPPORTED, "the bench has no knowledge bank"};
  };
  return s;
}

const aoe_host_services kServices = bench_services();

}  // namespace

std::unique_ptr<sdk::SearcherClient> SearcherPlugin::create() const {
  void* self = nullptr;
  const sdk::Host host(&kServices);
  host.check(create_fn(name.c_str(), "{}", &self), "creating searcher " + name);
  return std::make_unique<sdk::SearcherClient>(aoe_searcher_ref{sizeof(aoe_searcher_ref), self, vtable}, host);
}

std::vector<SearcherPlugin> load_searchers(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".so") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  std::vector<SearcherPlugin> out;
  for (const auto& file : files) {
    void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      std::fprintf(stderr, "skipped %s: %s\n", file.c_str(), dlerror());
      continue;
    }
    auto query = reinterpret_cast<aoe_plugin_query_fn>(dlsym(handle, AOE_PLUGIN_QUERY_SYMBOL));
    auto init = reinterpret_cast<aoe_plugin_init_fn>(dlsym(handle, AOE_PLUGIN_INIT_SYMBOL));
    auto create = reinterpret_cast<aoe_plugin_create_fn>(dlsym(handle, AOE_PLUGIN_CREATE_SYMBOL));
    const aoe_plugin_descriptor* d = query ? query() : nullptr;
    bool has_searcher = false;
    for (uint32_t i = 0; d && i < d->component_count; ++i) has_searcher |= d->components[i].kind == AOE_KIND_SEARCHER;
    if (!d || !init || !create || !has_searcher || d->sdk_major != AOE_SDK_VERSION_MAJOR ||
        d->sdk_minor > AOE_SDK_VERSION_MINOR) {
      if (d && has_searcher)
        std::fprintf(stderr, "skipped %s: built against SDK %u.%u\n", file.c_str(), d->sdk_major, d->sdk_minor);
      dlclose(handle);
      continue;
    }
    if (aoe_status* status = init(&kServices)) {
      std::fprintf(stderr, "skipped %s: init failed: %s\n", file.c_str(), status->message.c_str());
      delete status;
      continue;  // its code ran: it stays loaded
    }
    for (uint32_t i = 0; i < d->component_count; ++i)
      if (d->components[i].kind == AOE_KIND_SEARCHER)
        out.push_back({d->components[i].name, file.filename().string(), create,
                       static_cast<const aoe_searcher_vtable*>(d->components[i].vtable)});
  }
  return out;
}

}  // namespace aoe::bench
