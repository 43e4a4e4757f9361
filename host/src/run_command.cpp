#include "run_command.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <random>

#include "aoe/abi/device.h"
#include "aoe/sdk/atomic_file.h"
#include "aoe/sdk/device_client.h"
#include "aoe/sdk/graph_run.h"
#include "bank_tilings.h"
#include "command_line.h"
#include "device_fusion.h"
#include "exit_error.h"
#include "host_services.h"
#include "npz_file.h"
#include "run_setup.h"
#include "tuning_run.h"

namespace aoe::host {
namespace {

using aoe::sdk::Error;
using aoe::sdk::StatusCode;
using nlohmann::json;

std::string dims_text(const std::vector<int64_t>& dims) { return json(dims).dump(); }

int64_t bounded(const Settings& s, const std::string& key, int64_t lo, int64_t hi) {
  const int64_t v = s.integer(key);
  if (v < lo || v > hi)
    throw ExitError(exit_usage, key + " (" + s.source(key) + ") is " + std::to_string(v) + "; it takes " +
                                    std::to_string(lo) + " to " + std::to_string(hi));
  return v;
}

// Every input of the model, in its order: the one given under its name, of
// the input's shape, else (given.draw_missing) drawn uniformly from [-1, 1)
// with --seed, in the model's order.
std::vector<std::pair<std::string, FloatArray>> model_inputs(const Settings& s, const aoe::sdk::Graph& graph,
                                                             GivenInputs given) {
  for (const auto& name : graph.inputs)
    if (graph.tensor(name).dtype != aoe::sdk::DType::f32)
      throw ExitError(exit_model, std::string("input '") + name + "' is " + to_string(graph.tensor(name).dtype) +
                                      "; run feeds float32 inputs only");
  for (const auto& [name, array] : given.arrays)
    if (std::find(graph.inputs.begin(), graph.inputs.end(), name) == graph.inputs.end())
      throw ExitError(exit_usage, "inputs: " + given.source + " holds '" + name +
                                      "', which is not an input of the model (its inputs: " +
                                      json(graph.inputs).dump() + ")");
  std::vector<std::pair<std::string, FloatArray>> out;
  std::mt19937_64 rng(static_cast<uint64_t>(s.integer("seed")));
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (const auto& name : graph.inputs) {
    const auto& shape = graph.tensor(name).shape;
    auto it = given.arrays.find(name);
    if (it == given.arrays.end()) {
      if (!given.draw_missing)
        throw ExitError(exit_usage, "inputs: " + given.source + " has no array for input '" + name + "'");
      FloatArray a{shape, std::vector<float>(static_cast<size_t>(graph.tensor(name).elements()))};
      for (auto& x : a.data) x = u(rng);
      out.emplace_back(name, std::move(a));
      continue;
    }
    if (it->second.shape != shape)
      throw ExitError(exit_usage, "input '" + name + "': " + given.source + " holds shape " +
                                      dims_text(it->second.shape) + ", the model takes " + dims_text(shape) +
                                      " (dynamic dims are set with --input_shape)");
    out.emplace_back(name, std::move(it->second));
  }
  return out;
}

// --inputs: "random", or an .npz file holding every input.
GivenInputs inputs_option(const Settings& s) {
  const std::string source = s.text("inputs");
  if (source == "random") return {"random", {}, true};
  try {
    return {source, read_npz(source), false};
  } catch (const Error& e) {
    throw ExitError(exit_usage, std::string("inputs: ") + e.what());
  }
}

aoe::modes::BankTilings tilings_from_bank(const Settings& s, const aoe::sdk::Graph& graph,
                                          const aoe::sdk::DeviceClient& device, const json& described) {
  const Bank bank(bank_root(s, "op"));
  const std::string soc_version = described.value("soc_version", s.text("device"));
  const auto lookup = [&](const json& key) { return bank.lookup(key); };
  const auto warn = [](const std::string& why) { spdlog::warn("{}", why); };
  return aoe::modes::bank_tilings(graph, aoe::modes::fused_op_types(described), device, soc_version, {}, lookup, warn);
}

std::string percent_line(const json& latency) {
  char text[160];
  std::snprintf(text, sizeof text, "min %.3f ms, median %.3f ms, p90 %.3f ms", latency.value("min", 0.0),
                latency.value("median", 0.0), latency.value("p90", 0.0));
  return text;
}

void print_report(const json& report, const std::filesystem::path& report_path, std::ostream& out) {
  const auto& kernels = report.value("kernels", json::array());
  out << "model " << report.value("model", std::string()) << " on " << report.value("device", std::string()) << ": "
      << report.value("tuned_kernel_count", 0) << " of " << report.value("kernel_count", kernels.size())
      << " kernels ran the bank's config, the others the default\n";
  out << "latency over " << report["latency_ms"].value("runs", 0) << " runs"
      << (report.value("modelled", false) ? " (modelled)" : "") << ": " << percent_line(report["latency_ms"]) << "\n";
  if (report.contains("memory")) {
    char text[160];
    std::snprintf(text, sizeof text, "peak memory: %.1f MiB resident, %.1f MiB of tensors",
                  report["memory"].value("peak_rss_bytes", 0.0) / 1048576.0,
                  report["memory"].value("tensor_bytes", 0.0) / 1048576.0);
    out << text << "\n";
  }
  if (report.contains("weights") && report["weights"].is_object())
    out << "weights: " << report["weights"].value("from_model", 0) << " from the model, "
        << report["weights"].value("drawn_from_seed", 0) << " drawn from --seed\n";
  for (const auto& k : kernels)
    if (k.value("config_source", "") == "bank") out << "  tuned: " << k.value("name", k.value("anchor", "")) << "\n";
  if (report.contains("check"))
    out << "check: outputs " << (report["check"].value("match", false) ? "match" : "DO NOT match")
        << " the reference (|got - ref| <= " << report["check"].value("atol", 0.0) << " + "
        << report["check"].value("rtol", 0.0) << " * |ref|)\n";
  out << "run report: " << report_path.string() << "\n";
}

}  // namespace

ModelRunOutcome run_model(const Settings& settings, PluginRegistry& registry, HostServices& services,
                          const std::function<int()>& tune_misses, GivenInputs given, const ModelInMemory* in_memory) {
  if (in_memory && (settings.has("model") || settings.has("singleop")))
    throw ExitError(exit_usage, "run: a model in memory takes no --model or --singleop");
  if (!in_memory && !settings.has("model")) throw ExitError(exit_usage, "run: no model: pass --model m.onnx");
  if (settings.has("singleop")) throw ExitError(exit_usage, "run takes --model, not --singleop");
  const int64_t iterations = bounded(settings, "iterations", 1, 1000000);
  const int64_t threads = bounded(settings, "threads", 0, 4096);
  const Component& component = find_or_exit(registry, AOE_KIND_DEVICE, settings.text("device"));
  const std::filesystem::path model =
      in_memory ? std::filesystem::path(in_memory->name + ".onnx") : std::filesystem::path(settings.text("model"));
  ModelWeights weights;
  const aoe::sdk::Graph graph =
      in_memory ? load_model_bytes(settings, in_memory->bytes, model, &weights) : load_model(settings, &weights);
  auto inputs = model_inputs(settings, graph, std::move(given));

  const aoe::sdk::Host host = services.host();
  const auto* table = static_cast<const aoe_device_vtable*>(component.vtable);
  Instance instance(registry.create(component, device_options(settings).dump()), table->destroy);
  const aoe::sdk::DeviceClient device({sizeof(aoe_device_ref), instance.get(), table}, host);
  if (!device.runs_graphs())
    throw ExitError(exit_plugin, "device " + component.name + " cannot run models: it was built against an SDK before 1.4");
  const json described = device.describe();

  ModelRunOutcome outcome;
  auto tilings = tilings_from_bank(settings, graph, device, described);
  if (settings.boolean("tune_on_miss") && !tilings.misses.empty()) {
    spdlog::info("{} of {} ops miss the operator bank: tuning them", tilings.misses.size(),
                 tilings.misses.size() + tilings.hits.size());
    if (const int code = tune_misses(); code != exit_ok) return outcome.exit_code = code, outcome;
    tilings = tilings_from_bank(settings, graph, device, described);
  }

  aoe::sdk::GraphRun run;
  run.graph = graph;
  run.op_configs = tilings.op_configs;
  run.iterations = iterations;
  run.threads = threads;
  run.check = settings.boolean("check");
  run.seed = static_cast<uint64_t>(settings.integer("seed"));
  std::vector<aoe::sdk::TensorView> in, out;
  for (auto& [name, array] : inputs) in.push_back({name, array.data.data(), array.data.size()});
  // The model's weights follow its inputs, by name; those it does not carry are drawn from --seed.
  for (auto& [name, values] : weights)
    if (graph.tensors.count(name) && graph.tensor(name).constant) in.push_back({name, values.data(), values.size()});
  auto& results = outcome.outputs;
  for (const auto& name : graph.outputs)
    results.emplace_back(name, FloatArray{graph.tensor(name).shape,
                                          std::vector<float>(static_cast<size_t>(graph.tensor(name).elements()))});
  for (auto& [name, array] : results) out.push_back({name, array.data.data(), array.data.size()});

  json& report = outcome.report;
  try {
    report = device.run_graph(run, in, out);
  } catch (const Error& e) {
    const int code = e.code() == StatusCode::unsupported ? exit_model
                     : e.code() == StatusCode::invalid_argument ? exit_usage : exit_tuning_failed;
    throw ExitError(code, "device " + component.name + " cannot run " + model.string() + ": " + e.what());
  }
  if (!report.value("outputs_computed", true)) results.clear();
  report["model"] = model.stem().string();
  report["device"] = component.name;
  report["soc_version"] = described.value("soc_version", component.name);
  report["bank_path"] = bank_root(settings, "op").root().string();
  report["inputs"] = json::array();
  for (const auto& [name, array] : inputs) report["inputs"].push_back({{"name", name}, {"shape", array.shape}});
  report["bank"] = {{"hit", tilings.hits.size()}, {"miss", tilings.misses.size()},
                    {"hits", tilings.hits},       {"misses", tilings.misses}};

  const std::filesystem::path work = settings.has("work_path") ? settings.text("work_path") : ".";
  outcome.report_path = settings.has("run_report") ? std::filesystem::path(settings.text("run_report"))
                                                   : work / ("aoe_run_" + model.stem().string() + ".json");
  // As the result files are: the work folder is made when missing.
  if (outcome.report_path.has_parent_path()) std::filesystem::create_directories(outcome.report_path.parent_path());
  aoe::sdk::write_atomically(outcome.report_path, report.dump(2) + "\n");
  if (run.check && !report["check"].value("match", false)) {
    spdlog::error("the outputs do not match the reference: {}", report["check"].dump());
    outcome.exit_code = exit_tuning_failed;
  }
  return outcome;
}

int run_model_command(const Settings& settings, PluginRegistry& registry, HostServices& services,
                      const std::function<int()>& tune_misses) {
  if (!settings.has("model")) throw ExitError(exit_usage, "run: no model: pass --model m.onnx");
  const ModelRunOutcome outcome = run_model(settings, registry, services, tune_misses, inputs_option(settings));
  if (outcome.report.is_null()) return outcome.exit_code;  // --tune_on_miss failed
  if (settings.has("outputs")) {
    if (!outcome.report.value("outputs_computed", true))
      throw ExitError(exit_usage,
                      "outputs: device " + settings.text("device") + " models time only and computes no outputs");
    write_npz(settings.text("outputs"), outcome.outputs);
  }
  print_report(outcome.report, outcome.report_path, std::cout);
  return outcome.exit_code;
}

}  // namespace aoe::host
