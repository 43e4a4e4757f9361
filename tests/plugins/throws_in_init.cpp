// A plugin whose init throws: the SDK's boundary turns that into a status
// made through the host's table, which the host must read and destroy.
#include <aoe/abi/aoe.h>
#include <aoe/sdk/boundary.h>
#include <aoe/sdk/host.h>

#include <stdexcept>

namespace {

const aoe_plugin_descriptor descriptor = {
    sizeof(aoe_plugin_descriptor), AOE_SDK_VERSION_MAJOR, AOE_SDK_VERSION_MINOR, "throws_in_init", "1.0.0",
    "throws while initialising", 0, nullptr};

void connect_to_licence_server() {
  throw std::runtime_error("licence server licence.example:27000 did not answer; set AOE_LICENCE_SERVER");
}

}  // namespace

extern "C" {

AOE_EXPORT const aoe_plugin_descriptor* aoe_plugin_query(void) { return &descriptor; }

AOE_EXPORT aoe_status* aoe_plugin_init(const aoe_host_services* host) {
  return aoe::sdk::guarded(aoe::sdk::Host(host), [] { connect_to_licence_server(); });
}

AOE_EXPORT aoe_status* aoe_plugin_create(const char*, const char*, void** out_instance) {
  *out_instance = nullptr;
  return nullptr;
}

AOE_EXPORT void aoe_plugin_shutdown(void) {}
}
