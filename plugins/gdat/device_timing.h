// Forward time of every node of a model on the job's device: each node as an
// op task, timed with the device's default config. Nodes the device does not
// model are estimated as memory-bound at its HBM bandwidth.
#pragma once

#include <string>
#include <vector>

#include "aoe/sdk/tuning_mode.h"

namespace aoe::gdat {

struct NodeTimes {
  std::vector<double> forward_us;  // per node, graph order
  size_t timed = 0;                // nodes the device timed
  size_t estimated = 0;            // nodes estimated from their bytes
  size_t views = 0;                // reshapes and the like: no kernel, no time
  std::string estimated_ops;       // "BatchNormalization x53, ..."
};

NodeTimes forward_times(const aoe::sdk::Job& job);

}  // namespace aoe::gdat
