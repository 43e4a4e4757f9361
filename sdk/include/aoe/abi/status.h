/* SPDX-License-Identifier: Apache-2.0 */
/* Errors as values: a call returns NULL for success or a status made by the host. */
#ifndef AOE_ABI_STATUS_H
#define AOE_ABI_STATUS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
  AOE_STATUS_OK = 0,
  AOE_STATUS_INVALID_ARGUMENT = 1,
  AOE_STATUS_NOT_FOUND = 2,
  AOE_STATUS_UNSUPPORTED = 3,
  AOE_STATUS_CANCELLED = 4,
  AOE_STATUS_INTERNAL = 5,
  AOE_STATUS_IO = 6
};

/* Opaque; created with aoe_host_services.status_create, read and destroyed
   through the same table, so its layout never crosses the boundary. */
typedef struct aoe_status aoe_status;

#ifdef __cplusplus
}
#endif

#endif
