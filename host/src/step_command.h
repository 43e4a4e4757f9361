// `aoe-host step --model M [PROFILE.csv...]`: the kernels of M's training
// step by CANN's op type, fused as CANN fuses a step, with counts, beside the
// counts of each measured profile (op_name,op_type,... rows, one a kernel).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "settings.h"

namespace aoe::host {

// arguments: the profiles. Throws ExitError.
int run_step_command(const std::vector<std::string>& arguments, const Settings& settings, std::ostream& out);

}  // namespace aoe::host
