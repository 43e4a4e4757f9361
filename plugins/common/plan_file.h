// A mode's tuned plan in its workspace, replaced whole (write, then rename),
// so a reader never sees half a plan.
#pragma once

#include <nlohmann/json.hpp>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "aoe/sdk/error.h"

namespace aoe::modes {

inline void write_plan(const std::filesystem::path& file, const nlohmann::json& plan) {
  std::filesystem::create_directories(file.parent_path());
  const auto temp = file.string() + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(temp, std::ios::trunc);
    out << plan.dump(2) << "\n";
    if (!out.flush()) throw aoe::sdk::Error(aoe::sdk::StatusCode::io, "cannot write the tuned plan " + temp);
  }
  std::filesystem::rename(temp, file);
}

}  // namespace aoe::modes
