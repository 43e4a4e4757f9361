/* SPDX-License-Identifier: Apache-2.0 */
/* A writer the caller owns: how variable-sized text (JSON) leaves a call. */
#ifndef AOE_ABI_SINK_H
#define AOE_ABI_SINK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The callee calls write zero or more times; the bytes are appended. */
typedef struct aoe_sink {
  uint32_t struct_size;
  void* ctx;
  void (*write)(void* ctx, const char* data, size_t size);
} aoe_sink;

#ifdef __cplusplus
}
#endif

#endif
