/* SPDX-License-Identifier: Apache-2.0 */
/* The released layouts, frozen: a change here breaks every plugin already built. */
#ifndef AOE_ABI_LAYOUT_H
#define AOE_ABI_LAYOUT_H

#include <stddef.h>

#include "aoe/abi/device.h"
#include "aoe/abi/host_services.h"
#include "aoe/abi/measurement.h"
#include "aoe/abi/plugin.h"
#include "aoe/abi/searcher.h"
#include "aoe/abi/sink.h"
#include "aoe/abi/tensor.h"
#include "aoe/abi/tuning_mode.h"

#if defined(__x86_64__) || defined(__aarch64__)
#ifdef __cplusplus
#define AOE_FREEZE(cond, what) static_assert(cond, what)
#else
#define AOE_FREEZE(cond, what) _Static_assert(cond, what)
#endif
/* Structs may only grow at their end; these are the 1.0 sizes on LP64, and
   the offsets of what later minors appended. */
AOE_FREEZE(sizeof(aoe_sink) == 24, "aoe_sink 1.0 layout");
AOE_FREEZE(sizeof(aoe_measurement) == 272, "aoe_measurement 1.0 layout");
AOE_FREEZE(offsetof(aoe_measurement, message) == 28, "aoe_measurement 1.0 layout");
AOE_FREEZE(sizeof(aoe_measure_options) == 16, "aoe_measure_options 1.0 layout");
/* The host's table grows with the SDK: a plugin of an older minor reads only its members. */
AOE_FREEZE(offsetof(aoe_host_services, ctx) == 8, "aoe_host_services 1.0 layout");
AOE_FREEZE(offsetof(aoe_host_services, log) == 16, "aoe_host_services 1.0 layout");
AOE_FREEZE(offsetof(aoe_host_services, progress) == 24, "aoe_host_services 1.0 layout");
AOE_FREEZE(offsetof(aoe_host_services, cancelled) == 32, "aoe_host_services 1.0 layout");
AOE_FREEZE(offsetof(aoe_host_services, status_create) == 40, "aoe_host_services 1.0 layout");
AOE_FREEZE(offsetof(aoe_host_services, status_code) == 48, "aoe_host_services 1.0 layout");
AOE_FREEZE(offsetof(aoe_host_services, status_message) == 56, "aoe_host_services 1.0 layout");
AOE_FREEZE(offsetof(aoe_host_services, status_destroy) == 64, "aoe_host_services 1.0 layout");
AOE_FREEZE(offsetof(aoe_host_services, bank_lookup) == 72, "aoe_host_services 1.0 layout");
AOE_FREEZE(offsetof(aoe_host_services, bank_record) == 80, "aoe_host_services 1.0 layout");
AOE_FREEZE(offsetof(aoe_host_services, bank_entries) == 88, "aoe_host_services 1.2 layout");
AOE_FREEZE(offsetof(aoe_host_services, bank_nearest) == 96, "aoe_host_services 1.3 layout");
AOE_FREEZE(offsetof(aoe_host_services, release_tensor) == 104, "aoe_host_services 1.5 layout");
AOE_FREEZE(offsetof(aoe_host_services, output_buffer) == 112, "aoe_host_services 1.6 layout");
AOE_FREEZE(sizeof(aoe_host_services) == 120, "aoe_host_services 1.6 layout");
AOE_FREEZE(offsetof(aoe_device_vtable, run_graph) == 72, "aoe_device_vtable 1.0 layout");
AOE_FREEZE(sizeof(aoe_device_vtable) == 80, "aoe_device_vtable 1.4 layout");
AOE_FREEZE(sizeof(aoe_tensor) == 32, "aoe_tensor 1.4 layout");
AOE_FREEZE(sizeof(aoe_device_ref) == 24, "aoe_device_ref 1.0 layout");
AOE_FREEZE(sizeof(aoe_searcher_options) == 24, "aoe_searcher_options 1.0 layout");
AOE_FREEZE(sizeof(aoe_searcher_vtable) == 40, "aoe_searcher_vtable 1.0 layout");
AOE_FREEZE(sizeof(aoe_searcher_ref) == 24, "aoe_searcher_ref 1.0 layout");
AOE_FREEZE(sizeof(aoe_searcher_factory) == 24, "aoe_searcher_factory 1.0 layout");
AOE_FREEZE(sizeof(aoe_job) == 56, "aoe_job 1.0 layout");
AOE_FREEZE(sizeof(aoe_tuning_mode_vtable) == 24, "aoe_tuning_mode_vtable 1.0 layout");
AOE_FREEZE(sizeof(aoe_component) == 32, "aoe_component 1.0 layout");
AOE_FREEZE(offsetof(aoe_plugin_descriptor, sdk_major) == 4, "descriptor version must stay put");
AOE_FREEZE(offsetof(aoe_plugin_descriptor, sdk_minor) == 6, "descriptor version must stay put");
AOE_FREEZE(sizeof(aoe_plugin_descriptor) == 48, "aoe_plugin_descriptor 1.0 layout");
#undef AOE_FREEZE
#endif

#endif
