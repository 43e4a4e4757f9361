/* SPDX-License-Identifier: Apache-2.0 */
/* What the host lends a plugin at init: logging, progress, cancellation,
   statuses and the knowledge bank. Plugins never link against the host. */
#ifndef AOE_ABI_HOST_SERVICES_H
#define AOE_ABI_HOST_SERVICES_H

#include <stdint.h>

#include "aoe/abi/sink.h"
#include "aoe/abi/status.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
  AOE_LOG_TRACE = 0,
  AOE_LOG_DEBUG = 1,
  AOE_LOG_INFO = 2,
  AOE_LOG_WARN = 3,
  AOE_LOG_ERROR = 4
};

/* Bank record outcomes. */
enum {
  AOE_BANK_KEPT_EXISTING = 0, /* an entry at least as fast was already there */
  AOE_BANK_ADDED = 1,
  AOE_BANK_UPDATED = 2
};

typedef struct aoe_host_services {
  uint32_t struct_size;
  void* ctx; /* the host's per-plugin context: pass it back on every call */

  void (*log)(void* ctx, int32_t level, const char* message);
  /* A stage of work: `done` of `total` units, with a short note. */
  void (*progress)(void* ctx, const char* stage, uint64_t done, uint64_t total, const char* note);
  /* Non-zero once the user asked to stop (Ctrl-C, SIGTERM): finish what is safe, return. */
  int32_t (*cancelled)(void* ctx);

  aoe_status* (*status_create)(void* ctx, int32_t code, const char* message);
  int32_t (*status_code)(const aoe_status* status);
  const char* (*status_message)(const aoe_status* status);
  void (*status_destroy)(aoe_status* status);

  /* key_json names the entry: {"kind","soc_version","space_version","signature","hash"}.
     Writes the entry JSON to out_entry and sets *out_found to 1 when present. */
  aoe_status* (*bank_lookup)(void* ctx, const char* key_json, aoe_sink* out_entry, int32_t* out_found);
  /* Stores entry_json (its "key" plus config and times) unless an entry at
     least as fast is there; *out_outcome is one of AOE_BANK_*. */
  aoe_status* (*bank_record)(void* ctx, const char* entry_json, int32_t* out_outcome);

  /* SDK 1.2. Writes a JSON array of the entries whose key holds every field of
     query_json but "kind", which picks the bank as in bank_lookup: e.g.
     {"kind":"op","soc_version":..,"op_type":"MatMul"} lists every banked MatMul,
     for a mode to rank by shape. Corrupt entries are logged and left out.
     A plugin reads it only when struct_size covers it. */
  aoe_status* (*bank_entries)(void* ctx, const char* query_json, aoe_sink* out_entries_json);

  /* SDK 1.3. bank_entries' answer cut to the `count` entries whose key's
     "dims" (a JSON array of integers: an op's dims, its tensors' in order)
     lies nearest dims_json: by the sum over positions of |ln(a / b)|,
     nearest first, then the faster after_us (per SoC folder in turn when
     the query names no soc_version). Entries whose "dims" is missing,
     of another length, or differs where a value is not positive are left
     out. The bank's index holds "dims", so only the answer's entry files are
     opened however large the bank. */
  aoe_status* (*bank_nearest)(void* ctx, const char* query_json, const char* dims_json, uint64_t count,
                              aoe_sink* out_entries_json);

  /* SDK 1.5. Within run_graph: the device will not read again the weight
     the host lent by this name (it keeps its own packed or reordered copy),
     so the host may free it before run_graph returns and a model's weights
     are not held twice. Inputs and outputs are never released; a name the
     host did not lend as a weight is ignored. A hint: a device need not call it. */
  void (*release_tensor)(void* ctx, const char* name);

  /* SDK 1.6. Within run_graph: the buffer for the graph output `name` once
     the device knows its run-time shape (`rank` dims at `dims`), as ONNX
     Runtime lets a caller bind an output of unknown shape. The host lends an
     output whose shape the graph does not fix with no buffer (data NULL,
     count 0); the device asks here for it, and for any output whose run-time
     shape holds another count than the buffer it was lent. The host
     allocates the product of dims floats, writes their address to *out_data
     (NULL for none) and takes dims as the output's shape (the one its .npz,
     report and check show). The buffer is the host's: valid until run_graph
     returns or the next call for the same name. invalid_argument, naming the
     output, for a name that is not a graph output, a negative dim or a size
     past the host's limit. A table shorter than this member lacks it: the
     device then refuses such an output by name. */
  aoe_status* (*output_buffer)(void* ctx, const char* name, const int64_t* dims, uint32_t rank, float** out_data);
} aoe_host_services;

#ifdef __cplusplus
}
#endif

#endif
