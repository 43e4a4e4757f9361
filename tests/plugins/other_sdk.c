/* A plugin claiming an SDK this host cannot load (OTHER_SDK_MAJOR.OTHER_SDK_MINOR,
   set by the build: the next major, or a newer minor): refused before init. */
#include "aoe/abi/aoe.h"

static const aoe_plugin_descriptor descriptor = {
    sizeof(aoe_plugin_descriptor), OTHER_SDK_MAJOR, OTHER_SDK_MINOR, AOE_PLUGIN_NAME, "1.0.0",
    "claims an SDK version this host does not have", 0, 0};

AOE_EXPORT const aoe_plugin_descriptor* aoe_plugin_query(void) { return &descriptor; }

/* Logs so a test can tell if the host called it. */
AOE_EXPORT aoe_status* aoe_plugin_init(const aoe_host_services* host) {
  host->log(host->ctx, AOE_LOG_ERROR, AOE_PLUGIN_NAME ": init ran");
  return 0;
}

AOE_EXPORT aoe_status* aoe_plugin_create(const char* component, const char* options_json, void** out_instance) {
  (void)component;
  (void)options_json;
  *out_instance = 0;
  return 0;
}

AOE_EXPORT void aoe_plugin_shutdown(void) {}
