// `aoe-host run`: the whole model on a device with the configs the operator
// bank holds, timed end to end; optionally checked, its outputs written.
#pragma once

#include <functional>

namespace aoe::host {

class HostServices;
class PluginRegistry;
class Settings;

// Returns the exit code; throws ExitError for what stops it. `tune_misses`
// runs operator tuning on the same model and bank (--tune_on_miss) and
// returns its exit code.
int run_model_command(const Settings& settings, PluginRegistry& registry, HostServices& services,
                      const std::function<int()>& tune_misses);

}  // namespace aoe::host
