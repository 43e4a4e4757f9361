// aoe-host: the composition root. Parses settings, loads plugins, runs.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <boost/dll/runtime_symbol_info.hpp>

#include <cstdlib>
#include <cstring>
#include <iostream>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "aoe/abi/version.h"
#include "aoe/sdk/error.h"
#include "bank_command.h"
#include "command_line.h"
#include "exit_error.h"
#include "host_services.h"
#include "interrupt.h"
#include "kernel_tuner_export.h"
#include "plugin_list.h"
#include "plugin_loader.h"
#include "plugin_search.h"
#include "report_command.h"
#include "run_command.h"
#include "step_command.h"
#include "settings.h"
#include "tuning_run.h"

namespace {

using namespace aoe::host;

// The installed plugins, found from the binary's own folder (AOE_BIN_TO_PLUGINS, from the install layout).
std::filesystem::path installed_plugins() {
  const std::filesystem::path exe = boost::dll::program_location().string();
  return exe.parent_path() / AOE_BIN_TO_PLUGINS;
}

// What the plugins found with these options accept for --plugin, --device
// and --searcher; nothing when the options cannot be read.
std::map<std::string, std::vector<std::string>> loaded_names(const CommandLine& cl) {
  try {
    const Settings settings = Settings::resolve(cl.options, Settings::process_environment(), cl.config_file);
    HostServices services([] { return false; });
    PluginRegistry registry([&](const std::string& name) { return services.table_for(name); });
    spdlog::set_level(spdlog::level::off);  // help is no place for load warnings
    load_plugins(registry, settings, installed_plugins());
    return {{"plugin", registry.names(AOE_KIND_TUNING_MODE)},
            {"device", registry.names(AOE_KIND_DEVICE)},
            {"searcher", registry.names(AOE_KIND_SEARCHER)}};
  } catch (const std::exception&) {
    return {};
  }
}

int run(const std::vector<std::string>& args) {
  const CommandLine cl = parse_command_line(args);
  if (cl.command == "help") return std::cout << help_text(loaded_names(cl)), exit_ok;
  if (cl.command == "version") {
    std::cout << "aoe-host " << AOE_HOST_VERSION << " (SDK " << AOE_SDK_VERSION_MAJOR << "." << AOE_SDK_VERSION_MINOR
              << ")\n";
    return exit_ok;
  }
  const Settings settings = Settings::resolve(cl.options, Settings::process_environment(), cl.config_file);
  spdlog::set_level(spdlog::level::from_str(settings.text("log_level")));

  if (cl.command == "bank") return run_bank_command(cl.arguments, settings, std::cout);
  if (cl.command == "report") return run_report_command(cl.arguments, settings, std::cout);
  if (cl.command == "export") return run_export_command(cl.arguments, settings, std::cout);
  if (cl.command == "step") return run_step_command(cl.arguments, settings, std::cout);
  install_interrupt_handlers();
  HostServices services([] { return interrupted(); });
  PluginRegistry registry([&](const std::string& name) { return services.table_for(name); });
  load_plugins(registry, settings, installed_plugins());
  if (cl.command == "plugins") return print_plugins(registry, std::cout, settings.boolean("json")), exit_ok;
  for (const auto& refusal : registry.refusals())
    spdlog::warn("plugin {} refused: {}", refusal.path.string(), refusal.reason);
  if (cl.command == "run") {
    // --tune_on_miss: operator tuning of the same model into the same bank, then the run.
    const auto tune_misses = [&] {
      auto options = cl.options;
      options["plugin"] = "opat";
      const Settings tuning = Settings::resolve(options, Settings::process_environment(), cl.config_file);
      return run_tuning(tuning, registry, services).exit_code;
    };
    return run_model_command(settings, registry, services, tune_misses);
  }
  return run_tuning(settings, registry, services).exit_code;
}

// Buffers of a MiB and more (weights, packed panels, tensors) are mapped and
// unmapped one by one, so a weight a device releases goes back to the
// system. glibc otherwise raises its mapping threshold to the size of the
// first such buffer freed, after which they come from the heap, whose freed
// holes stay resident: BERT-base at batch 8 on two threads peaked at 618 MiB,
// 431 with the threshold fixed. The user's own setting wins.
void map_large_buffers() {
#ifdef __GLIBC__
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (std::getenv("MALLOC_MMAP_THRESHOLD_") || (tunables && std::strstr(tunables, "mmap_threshold"))) return;
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
}

}  // namespace

int main(int argc, char** argv) {
  map_large_buffers();
  spdlog::set_default_logger(spdlog::stderr_color_mt("aoe"));
  spdlog::set_pattern("[%H:%M:%S.%e] [%^%l%$] [%n] %v");
  try {
    return run(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const ExitError& e) {
    spdlog::error("{}", e.what());
    return e.code();
  } catch (const aoe::sdk::Error& e) {
    spdlog::error("{}", e.what());
    return e.code() == aoe::sdk::StatusCode::invalid_argument ? exit_usage : exit_tuning_failed;
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    return exit_tuning_failed;
  }
}
