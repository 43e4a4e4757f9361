#include "tuning_run.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdlib>
#include <map>

#include "aoe/abi/version.h"
#include "aoe/sdk/device_client.h"
#include "aoe/sdk/sink.h"
#include "bank.h"
#include "command_line.h"
#include "exit_error.h"
#include "frontend/onnx_frontend.h"
#include "frontend/singleop_frontend.h"
#include "host_services.h"
#include "mpi_launch.h"
#include "plugin_loader.h"
#include "report_data.h"
#include "result_file.h"
#include "run_setup.h"
#include "searcher_factory.h"
#include "settings.h"

namespace aoe::host {
namespace {

using aoe::sdk::Error;
using nlohmann::json;

// --plugin names the mode; else --job_type (AOE_MODE), which defaults to 2,
// operator tuning, as MindSpore's aoe_config does.
std::string tuning_mode_name(const Settings& s) {
  if (s.has("plugin")) return s.text("plugin");
  static const std::map<std::string, std::string> by_job_type = {{"1", "sgat"}, {"2", "opat"}, {"4", "gdat"}};
  return by_job_type.at(s.text("job_type"));
}

// A fresh workspace, or with --reload the newest one of the same model, so
// an interrupted job continues where it stopped.
std::filesystem::path workspace_dir(const Settings& s, const std::filesystem::path& work, const std::string& model_name,
                                    const std::string& timestamp) {
  const auto root = work / "aoe_workspace";
  if (!s.boolean("reload")) return root / (model_name + "_" + timestamp);
  std::filesystem::path newest;
  if (std::filesystem::is_directory(root))
    for (const auto& dir : std::filesystem::directory_iterator(root)) {
      const auto name = dir.path().filename().string();
      if (dir.is_directory() && name.rfind(model_name + "_", 0) == 0 && name.size() == model_name.size() + 1 + timestamp.size() &&
          (newest.empty() || name > newest.filename().string()))
        newest = dir.path();
    }
  if (newest.empty())
    throw ExitError(exit_usage, "--reload: no earlier workspace of model " + model_name + " under " + root.string() +
                                    "; run once without --reload");
  return newest;
}

// Rewrites the result file whenever the tuning mode publishes its report.
// Under mpirun every rank runs the job, and rank 0 speaks for all of them.
bool is_mpi_peer() { return aoe::modes::launch_from_environment().rank > 0; }

struct Publisher {
  const ResultFile& file;
  json basic;
  std::chrono::steady_clock::time_point started;
  bool silent = false;  // an MPI peer: no result file
  json* last;           // what was written last, for the caller of run_tuning

  void write(json section, const std::string& status_key, const std::string& status) {
    basic["tuning_time(s)"] =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (!status.empty()) section[status_key] = status;
    *last = file.document(basic, section);
    if (!silent) file.write(*last);
  }
};

// AOE's end line, with the figure the result file gives.
void print_summary(const std::string& model_name, const json& report, const std::string& status) {
  const double before = report.value("model_baseline_performance(ms)", 0.0);
  const double after = report.value("model_result_performance(ms)", 0.0);
  if (status == "tuning incomplete") {
    spdlog::warn("{} process interrupted: tuning incomplete; finished ops are kept in the bank", model_name);
  } else if (status == "tuning failed") {
    spdlog::error("{} process finished: tuning failed for some ops (see the result file); the others are kept in the bank",
                  model_name);
  } else if (before > 0 && after > 0 && after < before) {
    spdlog::info("{} process finished. Performance improved by {}", model_name,
                 report.value("model_performance_improvement", std::string("?")));
  } else if (before > 0) {
    spdlog::info("{} process finished. Performance was not improved: no tuned config beat the defaults", model_name);
  } else {
    spdlog::info("{} process finished. Performance was not improved: no op of the model could be tuned", model_name);
  }
}

}  // namespace

TuningOutcome run_tuning(const Settings& settings, PluginRegistry& registry, HostServices& services,
                         const ModelInMemory* in_memory) {
  const auto started_wall = std::chrono::system_clock::now();
  const auto started = std::chrono::steady_clock::now();
  if (settings.has("output"))
    throw ExitError(exit_usage, "--output (" + settings.source("output") +
                                    "): aoe-host writes no offline (.om) model as AOE's --output does; it tunes into "
                                    "the knowledge bank. -o/--output is for `aoe-host bank merge`");
  const Component& mode_component = find_or_exit(registry, AOE_KIND_TUNING_MODE, tuning_mode_name(settings));
  const std::string& mode = mode_component.name;
  if (settings.boolean("training") && mode != "opat" && mode != "sgat" && mode != "gdat")
    throw ExitError(exit_usage, "--training (" + settings.source("training") + ") is for OPAT, SGAT and GDAT: " + mode +
                                    " tunes the inference graph only; run it without --training, or use --plugin opat");
  const Component& device_component = find_or_exit(registry, AOE_KIND_DEVICE, settings.text("device"));
  const std::string& device_name = device_component.name;
  const aoe::sdk::Host host = services.host();
  // An unreadable --searcher is the user's to fix, before the model is read.
  try {
    parse_searcher_choice(settings.text("searcher"));
  } catch (const Error& e) {
    throw ExitError(exit_usage, e.what());
  }

  if (in_memory && (settings.has("model") || settings.has("singleop")))
    throw ExitError(exit_usage, "a model in memory is tuned alone: drop --model and --singleop (" +
                                    settings.source(settings.has("model") ? "model" : "singleop") + ")");
  const std::filesystem::path model = in_memory ? std::filesystem::path(in_memory->name + ".onnx") : model_path(settings);
  const aoe::sdk::Graph graph = in_memory ? load_model_bytes(settings, in_memory->bytes, model) : load_model(settings);
  const std::string model_name = model.stem().string();
  spdlog::info("model {}: {} nodes, opset {}", model.string(), graph.nodes.size(), graph.opset);

  const auto* device_table = static_cast<const aoe_device_vtable*>(device_component.vtable);
  Instance device(registry.create(device_component, device_options(settings).dump()), device_table->destroy);
  const aoe_device_ref device_ref{sizeof(aoe_device_ref), device.get(), device_table};
  const json soc = aoe::sdk::DeviceClient(device_ref, host).describe();
  // A device with more than one (the ascend driver's) says which it opened;
  // the simulators, cpu and replay have only device 0.
  const int64_t opened = soc.value("device_id", int64_t{0});
  if (settings.has("device_id") && settings.integer("device_id") != opened)
    throw ExitError(exit_usage, "device_id " + settings.text("device_id") + " (" + settings.source("device_id") +
                                    "): device " + device_name +
                                    (soc.contains("device_id") ? " opened device " + std::to_string(opened) +
                                                                     "; give the number as ASCEND_DEVICE_ID or "
                                                                     "--device_options '{\"device_id\": N}'"
                                                               : " has only device 0; unset ASCEND_DEVICE_ID or set 0"));
  const std::string soc_version = soc.value("soc_version", device_name);
  // A name no plugin has is a plugin matter.
  const SearcherFactory searchers = [&] {
    try {
      return SearcherFactory(registry, host, settings.text("searcher"), soc_version, settings.text("searcher_options"));
    } catch (const Error& e) {
      throw ExitError(exit_plugin, e.what());
    }
  }();

  const Bank bank(bank_root(settings, bank_kind(mode)));
  services.set_bank(&bank);
  // The other kinds a mode may read: SGAT the operators' tilings, OPAT the subgraphs' strategies.
  const Bank op_bank(bank_root(settings, "op")), graph_bank(bank_root(settings, "graph"));
  services.set_bank_of_kind("op", &op_bank);
  services.set_bank_of_kind("graph", &graph_bank);
  const std::filesystem::path work = settings.has("work_path") ? settings.text("work_path") : ".";
  ResultFile result = settings.has("result_file") ? ResultFile(settings.text("result_file"), mode)
                                                  : ResultFile(work, mode, started_wall);
  const auto workspace = workspace_dir(settings, work, model_name, result_timestamp(started_wall));
  TuningOutcome outcome{exit_ok, json::array(), result.path()};
  result.mirror_to(workspace / workspace_result_name);
  Publisher publisher{result,
                      {{"tuning_name", model_name},
                       {"tuning_time(s)", 0},
                       {"model", model.string()},
                       {"device", device_name},
                       {"soc_version", soc_version},
                       {"bank_path", bank.root().string()},
                       {"aoe_version", AOE_HOST_VERSION},
                       {"sdk_version", std::to_string(AOE_SDK_VERSION_MAJOR) + "." +
                                           std::to_string(AOE_SDK_VERSION_MINOR)}},
                      started,
                      is_mpi_peer(),
                      &outcome.result};
  const std::string status_key = mode + "_tuning_result";
  publisher.write(json::object(), status_key, "tuning incomplete");
  spdlog::info("device {} ({}), bank {}, result file {}", device_name, soc_version, bank.root().string(),
               result.path().string());

  const json options = {{"budget", settings.integer("budget")},
                        {"time_limit", settings.integer("time_limit")},
                        {"stall", settings.integer("stall")},
                        {"rank_timeout", settings.integer("rank_timeout")},
                        {"parallel_num", settings.integer("parallel_num")},
                        {"build_threads", settings.integer("build_threads")},
                        {"seed", settings.integer("seed")},
                        {"searcher", settings.text("searcher")},
                        {"searchers", searchers.routing()},
                        {"repeat_tune", settings.boolean("repeat_tune")},
                        {"warm_start", settings.boolean("warm_start")},
                        {"training", settings.boolean("training")},
                        {"optimizer", settings.text("optimizer")},
                        {"training_precision", settings.text("training_precision")},
                        {"bank_default", settings.boolean("tune_on_miss")},
                        {"tune_ops_file", settings.text("tune_ops_file")},
                        {"cluster", settings.text("cluster")},
                        {"gradient_profile", settings.text("gradient_profile")},
                        {"reload", settings.boolean("reload")},
                        {"device", device_name},
                        {"soc_version", soc_version},
                        {"model_name", model_name},
                        {"workspace", std::filesystem::absolute(workspace).string()}};
  const std::string graph_json = json(graph).dump();
  const std::string options_json = options.dump();
  aoe_job job{sizeof(aoe_job), graph_json.c_str(), options_json.c_str(), &device_ref, searchers.table(),
              &publisher, [](void* ctx, const char* report) {
                auto& p = *static_cast<Publisher*>(ctx);
                p.write(json::parse(report), {}, {});
              }};

  const auto* mode_table = static_cast<const aoe_tuning_mode_vtable*>(mode_component.vtable);
  Instance tuning_mode(registry.create(mode_component, "{}"), mode_table->destroy);
  aoe::sdk::StringSink out;
  try {
    host.check(mode_table->run(tuning_mode.get(), &job, out.get()), mode);
  } catch (const Error& e) {
    publisher.write({{"error", e.what()}}, status_key, "tuning failed");
    // Bad input handed through to the mode (a tune_ops_file, say) is the user's to fix.
    throw ExitError(e.code() == aoe::sdk::StatusCode::invalid_argument ? exit_usage : exit_tuning_failed, e.what());
  }
  json report = json::parse(out.str());
  if (services.cancelled()) report[status_key] = "tuning incomplete";
  publisher.write(report, status_key, "");
  const std::string status = report.value(status_key, std::string());
  outcome.exit_code =
      status == "tuning incomplete" ? exit_interrupted : status == "tuning failed" ? exit_tuning_failed : exit_ok;
  if (publisher.silent) return outcome;
  print_summary(model_name, report, status);
  spdlog::info("result file: {}", result.path().string());
  return outcome;
}

}  // namespace aoe::host
