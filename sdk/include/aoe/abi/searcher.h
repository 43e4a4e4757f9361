/* SPDX-License-Identifier: Apache-2.0 */
/* A searcher plugin's function table: ask/tell over a tuning space. */
#ifndef AOE_ABI_SEARCHER_H
#define AOE_ABI_SEARCHER_H

#include <stdint.h>

#include "aoe/abi/measurement.h"
#include "aoe/abi/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct aoe_searcher_options {
  uint32_t struct_size;
  uint64_t seed;   /* same seed, same observations: same proposals */
  uint64_t budget; /* most evaluations the searcher may ask for */
} aoe_searcher_options;

typedef struct aoe_searcher_vtable {
  uint32_t struct_size;
  void (*destroy)(void* self);
  aoe_status* (*start)(void* self, const char* space_json, const aoe_searcher_options* options);
  /* Writes up to max_count configs, knob_count values each, row after row;
     *out_count == 0 means the search is over (budget, stall or exhausted). */
  aoe_status* (*propose)(void* self, uint32_t max_count, int64_t* out_configs, uint32_t* out_count);
  aoe_status* (*observe)(void* self, const int64_t* config, const aoe_measurement* result);
} aoe_searcher_vtable;

typedef struct aoe_searcher_ref {
  uint32_t struct_size;
  void* self;
  const aoe_searcher_vtable* vtable;
} aoe_searcher_ref;

#ifdef __cplusplus
}
#endif

#endif
