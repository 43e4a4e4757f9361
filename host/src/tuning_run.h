// One tuning run from settings to result file: model in, device, tuning mode
// and searchers composed, report out.
#pragma once

namespace aoe::host {

class HostServices;
class PluginRegistry;
class Settings;

// Returns the process exit code; throws ExitError for what stops the run early.
int run_tuning(const Settings& settings, PluginRegistry& registry, HostServices& services);

}  // namespace aoe::host
