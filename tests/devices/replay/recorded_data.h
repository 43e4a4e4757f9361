// Where the replay tests find their spaces: the project's own recordings of
// simulator spaces, made at build time by aoe_record_space, and the real GPU
// recordings of Kernel Tuner's benchmark_hub (MIT), third-party data kept
// out of the repository and found through AOE_KERNEL_TUNER_DATA.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

namespace aoe::replay::test {

// The folder of this build's recordings of simulator spaces.
inline std::filesystem::path own_recordings() { return AOE_RECORDED_SPACES_DIR; }

// The environment variable AOE_KERNEL_TUNER_DATA, else the CMake variable of
// that name; empty when neither is set.
inline std::filesystem::path benchmark_hub_data() {
  if (const char* env = std::getenv("AOE_KERNEL_TUNER_DATA"); env && *env) return env;
  return AOE_KERNEL_TUNER_DATA;
}

}  // namespace aoe::replay::test

// Skips a test that needs the real GPU recordings when they are not here.
#define AOE_REQUIRE_BENCHMARK_HUB_DATA()                                                                  \
  if (::aoe::replay::test::benchmark_hub_data().empty())                                                 \
  GTEST_SKIP() << "needs Kernel Tuner's recorded GPU spaces (benchmark_hub): set AOE_KERNEL_TUNER_DATA " \
                  "to the folder holding convolution_milo_A100.json.gz and the others"
