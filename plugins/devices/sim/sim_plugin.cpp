// The sim plugin's registration: the simulated SoCs, one component each; the
// device itself lives apart, so that its tests and the benchmarks link it.
#include <dlfcn.h>

#include <filesystem>

#include "aoe/sdk/plugin.h"
#include "sim_device.h"
#include "soc_files.h"

namespace aoe::sim {
namespace {

// The SoC files lie at AOE_PLUGIN_DATA_DIR from the plugin's own folder (set
// by the build from the install layout), so an installed tree can be moved.
[[maybe_unused]] const bool shipped_soc_dir_known = [] {
#ifdef AOE_PLUGIN_DATA_DIR
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&set_shipped_soc_dir), &info) && info.dli_fname)
    set_shipped_soc_dir((std::filesystem::absolute(info.dli_fname).parent_path() / AOE_PLUGIN_DATA_DIR).lexically_normal());
#endif
  return true;
}();

}  // namespace

AOE_REGISTER_DEVICE(SimDevice, "ascend910", "Ascend 910 (DaVinci, 32 AI cores) simulator");
AOE_REGISTER_DEVICE(SimDevice, "ascend910b", "Ascend 910B, Atlas A2 (910B2, 24 AI cube cores) simulator");
AOE_REGISTER_DEVICE(SimDevice, "ascend310", "Ascend 310 (2 AI cores) simulator");
AOE_REGISTER_DEVICE(SimDevice, "ascend310p", "Ascend 310P (310P3, 8 AI cores) simulator");
AOE_REGISTER_DEVICE(SimDevice, "ascend_sim", "Ascend simulator of the SoC file named by option 'soc'");
}  // namespace aoe::sim
