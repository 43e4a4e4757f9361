/* SPDX-License-Identifier: Apache-2.0 */
/* The library-level contract: the descriptor and the four entry points. */
#ifndef AOE_ABI_PLUGIN_H
#define AOE_ABI_PLUGIN_H

#include <stdint.h>

#include "aoe/abi/host_services.h"
#include "aoe/abi/status.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
  AOE_KIND_DEVICE = 1,
  AOE_KIND_SEARCHER = 2,
  AOE_KIND_TUNING_MODE = 3
};

/* One thing a library offers: the simulator library offers one device
   component per SoC. */
typedef struct aoe_component {
  uint32_t struct_size;
  int32_t kind;        /* AOE_KIND_* */
  const char* name;    /* what users type: "ascend910", "random", "opat" */
  const char* summary;
  const void* vtable;  /* aoe_device_vtable, aoe_searcher_vtable or aoe_tuning_mode_vtable */
} aoe_component;

/* Pure data. The first three fields never move in any SDK version, so a
   host can read the version of a plugin built against any other. */
typedef struct aoe_plugin_descriptor {
  uint32_t struct_size;
  uint16_t sdk_major;
  uint16_t sdk_minor;
  const char* name;
  const char* version;
  const char* summary;
  uint32_t component_count;
  const aoe_component* components;
} aoe_plugin_descriptor;

typedef const aoe_plugin_descriptor* (*aoe_plugin_query_fn)(void);
/* The table stays valid until shutdown returns. */
typedef aoe_status* (*aoe_plugin_init_fn)(const aoe_host_services* host);
/* options_json may be NULL. *out_instance is passed as `self` to the
   component's vtable, which destroys it. */
typedef aoe_status* (*aoe_plugin_create_fn)(const char* component, const char* options_json, void** out_instance);
typedef void (*aoe_plugin_shutdown_fn)(void);

#define AOE_PLUGIN_QUERY_SYMBOL "aoe_plugin_query"
#define AOE_PLUGIN_INIT_SYMBOL "aoe_plugin_init"
#define AOE_PLUGIN_CREATE_SYMBOL "aoe_plugin_create"
#define AOE_PLUGIN_SHUTDOWN_SYMBOL "aoe_plugin_shutdown"

#ifdef __cplusplus
}
#endif

#endif
