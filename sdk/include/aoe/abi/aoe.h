/* SPDX-License-Identifier: Apache-2.0 */
/* The whole C ABI of the aoe SDK. */
#ifndef AOE_ABI_AOE_H
#define AOE_ABI_AOE_H

#include "aoe/abi/device.h"
#include "aoe/abi/export.h"
#include "aoe/abi/host_services.h"
#include "aoe/abi/layout.h"
#include "aoe/abi/measurement.h"
#include "aoe/abi/plugin.h"
#include "aoe/abi/searcher.h"
#include "aoe/abi/sink.h"
#include "aoe/abi/status.h"
#include "aoe/abi/tensor.h"
#include "aoe/abi/tuning_mode.h"
#include "aoe/abi/version.h"

#endif
