// The sim plugin's registration: the simulated SoCs, one component each; the
// device itself lives apart, so that its tests and the benchmarks link it.
#include "aoe/sdk/plugin.h"
#include "sim_device.h"

namespace aoe::sim {
AOE_REGISTER_DEVICE(SimDevice, "ascend910", "Ascend 910 (DaVinci, 32 AI cores) simulator");
AOE_REGISTER_DEVICE(SimDevice, "ascend910b", "Ascend 910B, Atlas A2 (910B2, 24 AI cube cores) simulator");
AOE_REGISTER_DEVICE(SimDevice, "ascend310", "Ascend 310 (2 AI cores) simulator");
AOE_REGISTER_DEVICE(SimDevice, "ascend310p", "Ascend 310P (310P3, 8 AI cores) simulator");
AOE_REGISTER_DEVICE(SimDevice, "ascend_sim", "Ascend simulator of the SoC file named by option 'soc'");
}  // namespace aoe::sim
