// The OPAT section of the AOE result file, built from the tasks tuned so far.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "op_tasks.h"
#include "task_tuner.h"

namespace aoe::opat {

// complete: every task was tried. The status follows from it and the tasks:
// "tuning incomplete", "tuning failed" (some task failed) or "tuning successful".
nlohmann::json opat_report(const std::vector<TunedTask>& tasks, bool complete);

}  // namespace aoe::opat
