/* SPDX-License-Identifier: Apache-2.0 */
/* A device plugin's function table: where candidates are built and timed. */
#ifndef AOE_ABI_DEVICE_H
#define AOE_ABI_DEVICE_H

#include <stdint.h>

#include "aoe/abi/measurement.h"
#include "aoe/abi/sink.h"
#include "aoe/abi/status.h"
#include "aoe/abi/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Handles below are opaque and owned by the device until released. */
typedef struct aoe_device_vtable {
  uint32_t struct_size;
  void (*destroy)(void* self);
  /* The SoC as JSON: soc_version, cores, buffers, bandwidths. */
  aoe_status* (*describe)(void* self, aoe_sink* out_json);
  /* Takes an op task (JSON); writes its tuning space (JSON, with the
     default config) and returns a task handle. AOE_STATUS_UNSUPPORTED when
     the device cannot run the op. */
  aoe_status* (*prepare)(void* self, const char* task_json, void** out_task, aoe_sink* out_space_json);
  void (*release_task)(void* self, void* task);
  /* Validity of a config against the device's constraints: OK or INVALID. */
  aoe_status* (*check)(void* self, void* task, const int64_t* config, uint32_t knob_count,
                       aoe_measurement* out_result);
  /* Builds a candidate. On failure *out_candidate is NULL and out_result
     says why (INVALID, BUILD_FAILED); that is data, not an error status. */
  aoe_status* (*build)(void* self, void* task, const int64_t* config, uint32_t knob_count,
                       void** out_candidate, aoe_measurement* out_result);
  /* Times a batch of built candidates of one task; one result each. */
  aoe_status* (*measure)(void* self, void* task, void* const* candidates, uint32_t count,
                         const aoe_measure_options* options, aoe_measurement* out_results);
  void (*release_candidate)(void* self, void* candidate);
  /* SDK 1.4. Runs a whole model: run_json holds the graph, the bank's
     tilings per fused op (anchor node -> {knob: value}) and how to run it
     (iterations, threads, check, seed). inputs: the graph's inputs by name;
     outputs: the graph's outputs in order, allocated by the caller. Writes
     a run report (JSON). AOE_STATUS_UNSUPPORTED when the device does not
     run models; a table shorter than this member has no run_graph. */
  aoe_status* (*run_graph)(void* self, const char* run_json, const aoe_tensor* inputs, uint32_t input_count,
                           aoe_tensor* outputs, uint32_t output_count, aoe_sink* out_report_json);
} aoe_device_vtable;

typedef struct aoe_device_ref {
  uint32_t struct_size;
  void* self;
  const aoe_device_vtable* vtable;
} aoe_device_ref;

#ifdef __cplusplus
}
#endif

#endif
