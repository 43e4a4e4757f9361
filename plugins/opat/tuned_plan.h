// The tuned plan: for each fused op of the model, the config it runs with and
// its time before and after, written to the run's workspace as tuning goes.
#pragma once

#include <filesystem>
#include <vector>

#include "plan_file.h"
#include "task_tuner.h"

namespace aoe::opat {

using aoe::modes::write_plan;

nlohmann::json tuned_plan(const std::string& model, const std::vector<TunedTask>& tasks);

}  // namespace aoe::opat
