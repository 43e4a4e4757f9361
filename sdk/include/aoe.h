/* SPDX-License-Identifier: Apache-2.0 */
/* aoe's C API (libaoe): tune and run a model from inside a program, as aoe-host does from the shell. */
#ifndef AOE_H
#define AOE_H

#include <stddef.h>
#include <stdint.h>

#include "aoe/abi/export.h"
#include "aoe/abi/status.h" /* AOE_STATUS_*: what every call returns */

/* A program built against API M.n runs with a libaoe of M.m, m >= n; check
   with aoe_api_version at start. Structs start with struct_size and only
   grow at their end. */
#define AOE_API_VERSION_MAJOR 1
#define AOE_API_VERSION_MINOR 1 /* 1.1: aoe_session_run_file / _bytes */

#ifdef __cplusplus
extern "C" {
#endif

/* The version of the libaoe loaded, to compare with the header's. */
AOE_EXPORT void aoe_api_version(uint32_t* major, uint32_t* minor);

/* The message of this thread's last call that returned a status other than
   AOE_STATUS_OK (it names the option, file or op and what to do); "" before
   any. Valid until this thread's next call. */
AOE_EXPORT const char* aoe_last_error(void);

/* Options by the names aoe-host takes (`aoe-host --help`): "job_type",
   "device", "searcher", "budget", "bank_path", "work_path", "result_file",
   "log_level"...; "config" names a YAML file of them, as --config does. The
   environment variables aoe-host reads (TUNE_BANK_PATH...) apply beneath. */
typedef struct aoe_option {
  const char* key;
  const char* value;
} aoe_option;

/* Settings and the loaded plugins. A session is used from one thread at a
   time, but for aoe_session_cancel. Tunings of every session of a process
   run one at a time (plugins serve one run at once); the first session's
   plugin folders are every later one's. */
typedef struct aoe_session aoe_session;

/* Reads options (count of them; NULL when count is 0) and loads the plugins.
   An unknown option, a value of the wrong type or an unknown device gives
   AOE_STATUS_INVALID_ARGUMENT or AOE_STATUS_NOT_FOUND and a message naming it. */
AOE_EXPORT int32_t aoe_session_create(const aoe_option* options, size_t count, aoe_session** out_session);
/* NULL is ignored. Not while a call on the session runs. */
AOE_EXPORT void aoe_session_destroy(aoe_session* session);

/* A progress report of the tuning mode: opat reports stage "task", done i of
   total N tasks and note "<op>: best <t> us, <e>/<budget> evaluations" (or
   "<op> (<type>)" as a task starts); sgat "subgraph", gdat "search". */
typedef struct aoe_progress {
  uint32_t struct_size;
  const char* stage;
  uint64_t done;
  uint64_t total;
  const char* note;
} aoe_progress;
/* Called during the tuning, on the thread that called tune or on a thread
   of the tuning mode's; the strings last for the call only. */
typedef void (*aoe_progress_fn)(void* user, const aoe_progress* progress);
/* NULL fn: no callback. Not while a tuning of the session runs. */
AOE_EXPORT int32_t aoe_session_set_progress(aoe_session* session, aoe_progress_fn fn, void* user);

/* Tunes the model at model_path with the tuning mode named by mode ("opat",
   "sgat", "gdat"; NULL: the session's "plugin" or "job_type" option).
   AOE_STATUS_OK: complete. AOE_STATUS_CANCELLED: stopped by
   aoe_session_cancel, result "tuning incomplete", finished ops in the bank.
   AOE_STATUS_INTERNAL with a result: tuning failed for some ops (the result
   names them). Otherwise no tuning ran and the message says why. */
AOE_EXPORT int32_t aoe_session_tune_file(aoe_session* session, const char* mode, const char* model_path);
/* The same for a serialized ONNX model of size bytes at data; name is the
   tuning's name (a file name's stem: letters, digits, '_', '-', '.'). */
AOE_EXPORT int32_t aoe_session_tune_bytes(aoe_session* session, const char* mode, const char* name, const void* data,
                                          size_t size);
/* The last tuning's result as AOE's JSON result file holds it:
   [{"basic": {...}}, {"OPAT": {..., "opat_tuning_result": "tuning succeeded"}}];
   "" when no tuning reported one. Valid until the session's next tune or destroy. */
AOE_EXPORT const char* aoe_session_result(const aoe_session* session);

/* Asks the session's tuning to stop as Ctrl-C asks aoe-host: it finishes what
   is safe and returns AOE_STATUS_CANCELLED. Safe from any thread and from a
   signal handler (it sets one lock-free flag). A cancel with no tuning running
   stops the next at once; the flag clears as a tuning returns. */
AOE_EXPORT void aoe_session_cancel(aoe_session* session);

/* The bank entries of kind ("op", "graph", "gradient") whose key's signature
   is signature, on every SoC, as a JSON array of entries in the session's
   bank ("bank_path", TUNE_BANK_PATH, ...). *out_json is valid until the
   session's next call of this function or destroy. */
AOE_EXPORT int32_t aoe_session_bank_entries(aoe_session* session, const char* kind, const char* signature,
                                            const char** out_json);

/* What `aoe-host plugins --json` prints: {"components": [{name, kind, ...}],
   "refused": [{path, reason}]}. *out_json is valid until the session's next
   call of this function or destroy. */
AOE_EXPORT int32_t aoe_session_plugins(aoe_session* session, const char** out_json);

/* ---- Since API 1.1: running a model, as `aoe-host run` does. ---- */

/* A model input by name: a float32 array, row-major, rank dims at dims and
   as many floats at data as their product (dims may be NULL when rank is 0:
   a scalar). An array of these is read with this layout, so it never grows. */
typedef struct aoe_input {
  const char* name;
  const int64_t* dims;
  size_t rank;
  const float* data;
} aoe_input;

/* A model run's outputs and its run report; its strings and arrays live
   until aoe_run_result_destroy. */
typedef struct aoe_run_result aoe_run_result;

/* Runs the model at model_path on the session's device with the configs the
   session's bank holds (its default for an op the bank misses), once untimed
   and "iterations" times timed, with the session's options as `aoe-host run`
   takes them ("iterations", "threads", "seed", "check", "tune_on_miss",
   "run_report", "work_path"...); the run report is also written to its file.
   inputs (count of them; NULL when count is 0) are the model's inputs by
   name, each of the model's shape; an input left out is drawn from "seed" as
   `aoe-host run --inputs random` draws it. AOE_STATUS_OK: *out_result holds
   the outputs (none from a device that models time only, such as the
   simulators; the report says "outputs_computed": false) until
   aoe_run_result_destroy. Otherwise *out_result is NULL and the message names
   the input (unknown name, other dims), the op the device cannot run, or the
   reference the outputs do not match ("check"). */
AOE_EXPORT int32_t aoe_session_run_file(aoe_session* session, const char* model_path, const aoe_input* inputs,
                                        size_t count, aoe_run_result** out_result);
/* The same for a serialized ONNX model of size bytes at data; name is the
   run's name (the report's "model"; letters, digits, '_', '-', '.'). */
AOE_EXPORT int32_t aoe_session_run_bytes(aoe_session* session, const char* name, const void* data, size_t size,
                                         const aoe_input* inputs, size_t count, aoe_run_result** out_result);

/* The model's outputs, in its order; 0 for NULL. */
AOE_EXPORT size_t aoe_run_result_output_count(const aoe_run_result* result);
/* Output index's name, dims (*out_rank of them) and data (*out_count floats,
   row-major); NULL (and 0) for an index past the count. */
AOE_EXPORT const char* aoe_run_result_output_name(const aoe_run_result* result, size_t index);
AOE_EXPORT const int64_t* aoe_run_result_output_dims(const aoe_run_result* result, size_t index, size_t* out_rank);
AOE_EXPORT const float* aoe_run_result_output_data(const aoe_run_result* result, size_t index, size_t* out_count);
/* The run report's JSON, as written to its file: "latency_ms" {min, median,
   p90, mean, runs}, "kernels" [{name, nodes, config, config_source: "bank"
   or "default", ms: mean per run}], "conversions" {count, ms},
   "memory" {peak_rss_bytes, tensor_bytes, arena_bytes}, "weights"
   {from_model, released_after_binding, drawn_from_seed},
   "tuned_kernel_count", "bank" {hit, miss}, "check"... */
AOE_EXPORT const char* aoe_run_result_report(const aoe_run_result* result);
/* NULL is ignored. */
AOE_EXPORT void aoe_run_result_destroy(aoe_run_result* result);

#ifdef __cplusplus
}
#endif

#endif
