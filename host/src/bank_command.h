// `aoe-host bank show [DIR]` and `aoe-host bank merge A B -o OUT`.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "settings.h"

namespace aoe::host {

// arguments: what follows `bank` on the command line. Throws ExitError.
int run_bank_command(const std::vector<std::string>& arguments, const Settings& settings, std::ostream& out);

}  // namespace aoe::host
