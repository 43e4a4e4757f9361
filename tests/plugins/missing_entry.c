/* A plugin without aoe_plugin_create: otherwise valid, so that is the only reason to refuse it. */
#include "aoe/abi/aoe.h"

static const aoe_plugin_descriptor descriptor = {
    sizeof(aoe_plugin_descriptor), AOE_SDK_VERSION_MAJOR, AOE_SDK_VERSION_MINOR, "missing_entry", "1.0.0",
    "lacks one of the four entry points", 0, 0};

AOE_EXPORT const aoe_plugin_descriptor* aoe_plugin_query(void) { return &descriptor; }

/* Logs so a test can tell if the host called it. */
AOE_EXPORT aoe_status* aoe_plugin_init(const aoe_host_services* host) {
  host->log(host->ctx, AOE_LOG_ERROR, "missing_entry: init ran");
  return 0;
}

AOE_EXPORT void aoe_plugin_shutdown(void) {}
