// SoCs as YAML files: where they are found and how one is read.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "soc.h"

namespace aoe::sim {

// The directories of AOE_SIM_SOC_PATH (':'-separated), then the folder
// shipped with the plugin (<prefix>/share/aoe/sim/socs).
std::vector<std::filesystem::path> soc_search_path();

// The folder of the files shipped with the plugin, which the plugin sets as
// it loads; a program that links the simulator's code has none.
void set_shipped_soc_dir(std::filesystem::path dir);

// Throws invalid_argument naming the file and the key for a missing,
// mistyped, non-positive or unknown key, or for malformed YAML.
Soc load_soc_file(const std::filesystem::path& file);

// `name` is a target ("ascend910b", read from <target>.yaml on the search
// path) or a path to a YAML file. Throws not_found for neither.
Soc load_soc(std::string_view name);

// The ascend910 SoC file, found as load_soc finds it and read once.
const Soc& ascend910();

}  // namespace aoe::sim
