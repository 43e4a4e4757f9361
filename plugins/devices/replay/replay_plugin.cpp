// The replay plugin's registration: the device itself lives apart, so that
// its tests and the benchmarks link it.
#include "aoe/sdk/plugin.h"
#include "replay_device.h"

namespace aoe::replay {
AOE_REGISTER_DEVICE(ReplayDevice, "replay", "Replays a Kernel Tuner cachefile: recorded times, failures and costs");
}  // namespace aoe::replay
