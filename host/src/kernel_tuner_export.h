// `aoe-host export kernel_tuner WORKSPACE --task T -o FILE`: one task's
// measurements from measurements.jsonl as a Kernel Tuner cachefile, which
// the replay device (and Kernel Tuner's simulation mode) reads back.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "settings.h"

namespace aoe::host {

// task: the task's signature (its bank hash), its name, or its 1-based index
// in the order the log first measured it. Throws ExitError naming the task,
// listing the tasks there are, when none matches.
nlohmann::ordered_json kernel_tuner_cachefile(const std::filesystem::path& workspace, const std::string& task);

// arguments: what follows `export`: kernel_tuner WORKSPACE. Throws ExitError.
int run_export_command(const std::vector<std::string>& arguments, const Settings& settings, std::ostream& out);

}  // namespace aoe::host
