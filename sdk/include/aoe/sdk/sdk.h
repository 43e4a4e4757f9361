// SPDX-License-Identifier: Apache-2.0
// Everything a plugin author needs.
#pragma once

#include "aoe/sdk/device.h"
#include "aoe/sdk/device_client.h"
#include "aoe/sdk/error.h"
#include "aoe/sdk/fusion.h"
#include "aoe/sdk/graph.h"
#include "aoe/sdk/host.h"
#include "aoe/sdk/measurement.h"
#include "aoe/sdk/op_task.h"
#include "aoe/sdk/plugin.h"
#include "aoe/sdk/searcher.h"
#include "aoe/sdk/searcher_client.h"
#include "aoe/sdk/subgraph_task.h"
#include "aoe/sdk/tuning_mode.h"
#include "aoe/sdk/tuning_space.h"
