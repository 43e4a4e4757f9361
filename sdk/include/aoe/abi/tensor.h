/* SPDX-License-Identifier: Apache-2.0 */
/* A float32 tensor's data lent across the boundary: the lender owns it. */
#ifndef AOE_ABI_TENSOR_H
#define AOE_ABI_TENSOR_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct aoe_tensor {
  uint32_t struct_size;
  const char* name;  /* the graph's tensor name, NUL-terminated */
  float* data;       /* count elements, row-major in the graph's shape */
  uint64_t count;
} aoe_tensor;

#ifdef __cplusplus
}
#endif

#endif
