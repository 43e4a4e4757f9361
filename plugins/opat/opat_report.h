// The OPAT section of the AOE result file, built from the tasks tuned so far.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "op_tasks.h"
#include "task_tuner.h"

namespace aoe::opat {

// status: "tuning successful", "tuning incomplete", ...
nlohmann::json opat_report(const std::vector<TunedTask>& tasks, const std::string& status);

}  // namespace aoe::opat
