// A mode's tuned plan in its workspace, replaced whole (write, then rename),
// so a reader never sees half a plan.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>

#include "aoe/sdk/atomic_file.h"

namespace aoe::modes {

inline void write_plan(const std::filesystem::path& file, const nlohmann::json& plan) {
  std::filesystem::create_directories(file.parent_path());
  aoe::sdk::write_atomically(file, plan.dump(2) + "\n");
}

}  // namespace aoe::modes
