// Where the simulator benchmarks find SoC files: any folders the user names
// on AOE_SIM_SOC_PATH, then the source tree's (the build defines
// AOE_SIM_SOC_DIR for each of them).
#pragma once

#include <cstdlib>
#include <string>

namespace aoe::bench {

inline void find_source_tree_socs() {
  std::string path = AOE_SIM_SOC_DIR;
  if (const char* env = std::getenv("AOE_SIM_SOC_PATH"); env && *env) path = std::string(env) + ":" + path;
  setenv("AOE_SIM_SOC_PATH", path.c_str(), 1);
}

}  // namespace aoe::bench
