/* SPDX-License-Identifier: Apache-2.0 */
/* The outcome of building or timing one candidate: data, never an error. */
#ifndef AOE_ABI_MEASUREMENT_H
#define AOE_ABI_MEASUREMENT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
  AOE_RESULT_OK = 0,
  AOE_RESULT_INVALID = 1,      /* the config breaks a constraint of the device */
  AOE_RESULT_BUILD_FAILED = 2,
  AOE_RESULT_RUN_FAILED = 3,
  AOE_RESULT_TIMEOUT = 4,
  AOE_RESULT_WRONG_RESULT = 5
};

#define AOE_MEASUREMENT_MESSAGE_SIZE 240

typedef struct aoe_measurement {
  uint32_t struct_size;
  int32_t status;     /* AOE_RESULT_* */
  double time_us;     /* representative (median) time; meaningful when status is OK */
  double noise;       /* relative spread of the repeats, 0 when exact */
  uint32_t repeats;   /* how many timed runs time_us summarises */
  char message[AOE_MEASUREMENT_MESSAGE_SIZE]; /* NUL-terminated, why it failed */
} aoe_measurement;

typedef struct aoe_measure_options {
  uint32_t struct_size;
  uint32_t warmup;    /* untimed runs before timing */
  uint32_t repeats;   /* timed runs; the device may stop early once stable */
  int32_t verify;     /* non-zero: check the output, WRONG_RESULT on mismatch */
} aoe_measure_options;

#ifdef __cplusplus
}
#endif

#endif
