/* A plugin built against a newer SDK minor than the host's: refused before init. */
#include "aoe/abi/aoe.h"

static const aoe_plugin_descriptor descriptor = {
    sizeof(aoe_plugin_descriptor), AOE_SDK_VERSION_MAJOR, AOE_SDK_VERSION_MINOR + 1, "newer_minor", "1.0.0",
    "claims an SDK minor newer than this host's", 0, 0};

AOE_EXPORT const aoe_plugin_descriptor* aoe_plugin_query(void) { return &descriptor; }

/* Logs so a test can tell if the host called it. */
AOE_EXPORT aoe_status* aoe_plugin_init(const aoe_host_services* host) {
  host->log(host->ctx, AOE_LOG_ERROR, "newer_minor: init ran");
  return 0;
}

AOE_EXPORT aoe_status* aoe_plugin_create(const char* component, const char* options_json, void** out_instance) {
  (void)component;
  (void)options_json;
  *out_instance = 0;
  return 0;
}

AOE_EXPORT void aoe_plugin_shutdown(void) {}
