// The tuned plan: for each fused op of the model, the config it runs with and
// its time before and after, written to the run's workspace as tuning goes.
#pragma once

#include <filesystem>
#include <vector>

#include "task_tuner.h"

namespace aoe::opat {

nlohmann::json tuned_plan(const std::string& model, const std::vector<TunedTask>& tasks);

// Replaces `file` whole (write, then rename), so a reader never sees half a plan.
void write_plan(const std::filesystem::path& file, const nlohmann::json& plan);

}  // namespace aoe::opat
