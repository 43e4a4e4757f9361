/* SPDX-License-Identifier: Apache-2.0 */
/* A tuning-mode plugin's function table: what to tune, in which order. */
#ifndef AOE_ABI_TUNING_MODE_H
#define AOE_ABI_TUNING_MODE_H

#include <stdint.h>

#include "aoe/abi/device.h"
#include "aoe/abi/searcher.h"
#include "aoe/abi/sink.h"
#include "aoe/abi/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Makes searchers on demand, one per op task. name NULL: the host's choice
   (the --searcher option, else a default for op_type). Destroy the result
   through its own vtable. */
typedef struct aoe_searcher_factory {
  uint32_t struct_size;
  void* ctx;
  aoe_status* (*create)(void* ctx, const char* name, const char* op_type, aoe_searcher_ref* out);
} aoe_searcher_factory;

typedef struct aoe_job {
  uint32_t struct_size;
  const char* graph_json;   /* the model in the SDK graph IR */
  const char* options_json; /* budget, tune_ops, seed, ... */
  const aoe_device_ref* device;
  const aoe_searcher_factory* searchers;
  /* The report so far: the host rewrites the result file with it. */
  void* report_ctx;
  void (*publish_report)(void* report_ctx, const char* report_json);
} aoe_job;

typedef struct aoe_tuning_mode_vtable {
  uint32_t struct_size;
  void (*destroy)(void* self);
  aoe_status* (*run)(void* self, const aoe_job* job, aoe_sink* out_report_json);
} aoe_tuning_mode_vtable;

#ifdef __cplusplus
}
#endif

#endif
