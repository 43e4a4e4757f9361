// `aoe-host report WORKSPACE [-o report.html]`: a run's tuning as one
// self-contained HTML page.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "settings.h"

namespace aoe::host {

// arguments: what follows `report`. Throws ExitError.
int run_report_command(const std::vector<std::string>& arguments, const Settings& settings, std::ostream& out);

}  // namespace aoe::host
