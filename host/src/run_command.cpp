#include "run_command.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <map>
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
#include "patterns.h"
#include "run_setup.h"
#include "run_time_outputs.h"
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

bool is_integer(aoe::sdk::DType t) {
  using aoe::sdk::DType;
  return t == DType::i8 || t == DType::i16 || t == DType::i32 || t == DType::i64 || t == DType::u8 ||
         t == DType::u16 || t == DType::u32 || t == DType::u64;
}

// The rows an integer input may pick: the shortest axis of the Gathers that
// take it as indices; 0 when anything else reads it.
int64_t index_extent(const aoe::sdk::Graph& graph, const std::string& name) {
  int64_t extent = -1;
  for (const auto& node : graph.nodes)
    for (size_t k = 0; k < node.inputs.size(); ++k) {
      if (node.inputs[k] != name) continue;
      if (node.op_type != "Gather" || k != 1 || node.inputs[0].empty()) return 0;
      const auto& data = graph.tensor(node.inputs[0]).shape;
      const auto rank = static_cast<int64_t>(data.size());
      const auto& axis_attr = node.attrs.contains("axis") ? node.attrs.at("axis") : json(0);
      int64_t axis = axis_attr.is_number_integer() ? axis_attr.get<int64_t>() : rank;
      if (axis < 0) axis += rank;
      if (axis < 0 || axis >= rank || data[static_cast<size_t>(axis)] < 1) return 0;
      const int64_t n = data[static_cast<size_t>(axis)];
      extent = extent < 0 ? n : std::min(extent, n);
    }
  return std::max<int64_t>(extent, 0);
}

// Every input of the model, in its order: the one given under its name, of
// the input's shape, else (given.draw_missing) drawn with --seed, in the
// model's order: floats uniformly from [-1, 1), Gather indices as whole
// numbers over the rows they pick, other integers in [-8, 8], bools 0 or 1.
// Every buffer the devices take is float32: integers and bools are held as
// the whole numbers they are.
std::vector<std::pair<std::string, FloatArray>> model_inputs(const Settings& s, const aoe::sdk::Graph& graph,
                                                             GivenInputs given) {
  std::map<std::string, int64_t> indices;  // integer input -> the rows it may pick; 0: any whole number
  for (const auto& name : graph.inputs) {
    const auto dtype = graph.tensor(name).dtype;
    if (aoe::sdk::is_float(dtype)) continue;
    if (!is_integer(dtype) && dtype != aoe::sdk::DType::boolean)
      throw ExitError(exit_model, std::string("input '") + name + "' is " + to_string(dtype) +
                                      "; run feeds float32, float64, float16 and bfloat16 (as float32), integer and bool inputs");
    const int64_t extent = is_integer(dtype) ? index_extent(graph, name) : 0;
    indices[name] = extent;
    if (extent > (int64_t{1} << 24))
      throw ExitError(exit_model, std::string("input '") + name + "' indexes " + std::to_string(extent) +
                                      " rows, more than a float32 index holds exactly (2^24)");
  }
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
      if (const auto rows = indices.find(name); rows != indices.end()) {
        // Gather's indices over the rows they pick; other integers small whole
        // numbers of either sign, bools 0 or 1.
        const bool boolean = graph.tensor(name).dtype == aoe::sdk::DType::boolean;
        std::uniform_int_distribution<int64_t> row(boolean ? 0 : rows->second > 0 ? 0 : -8,
                                                   boolean ? 1 : rows->second > 0 ? rows->second - 1 : 8);
        for (auto& x : a.data) x = static_cast<float>(row(rng));
      } else {
        for (auto& x : a.data) x = u(rng);
      }
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

// Where a run's time goes: the costliest kernels (mean per run, as the
// device measured each one) and the layout conversions between them.
void print_time_by_kernel(const json& report, const json& kernels, std::ostream& out) {
  std::vector<const json*> timed;
  for (const auto& k : kernels)
    if (k.contains("ms") && k["ms"].is_number()) timed.push_back(&k);
  if (timed.empty()) return;
  std::sort(timed.begin(), timed.end(), [](const json* a, const json* b) { return (*a)["ms"] > (*b)["ms"]; });
  const double median = report["latency_ms"].value("median", 0.0);
  const auto line = [&](const std::string& what, double ms) {
    char text[96];
    std::snprintf(text, sizeof text, "%9.3f ms %5.1f%%  ", ms, median > 0 ? 100.0 * ms / median : 0.0);
    out << "  " << text << what << "\n";
  };
  const size_t shown = std::min<size_t>(timed.size(), 5);
  out << "time by kernel, mean per run (the costliest " << shown << " of " << timed.size() << "; % of the median):\n";
  for (size_t i = 0; i < shown; ++i)
    line(timed[i]->value("name", std::string()) + " (" + timed[i]->value("op_type", std::string()) + ")",
         (*timed[i])["ms"].get<double>());
  if (report.contains("conversions") && report["conversions"].is_object())
    line(std::to_string(report["conversions"].value("count", 0)) + " layout conversions",
         report["conversions"].value("ms", 0.0));
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
  if (report.contains("normalised") && report["normalised"].is_object()) {
    std::string rules;
    for (const auto& [rule, count] : report["normalised"].items())
      if (count.get<int64_t>()) rules += (rules.empty() ? "" : ", ") + rule + " " + std::to_string(count.get<int64_t>());
    out << "graph normalised: " << (rules.empty() ? "nothing to change" : rules) << "\n";
  }
  print_time_by_kernel(report, kernels, out);
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
  Normalisation normalised;
  // Planned as OPAT and SGAT tune it: LayerNorm and GELU subgraphs as one op
  // each, so the ops the run looks up are those tuning banked.
  const aoe::sdk::Graph graph = aoe::graph::recognise_patterns(
      in_memory ? load_model_bytes(settings, in_memory->bytes, model, &weights, &normalised)
                : load_model(settings, &weights, &normalised)).graph;
  auto inputs = model_inputs(settings, graph, std::move(given));
  for (const auto& name : graph.outputs)
    if (graph.tensor(name).dtype == aoe::sdk::DType::undefined)
      throw ExitError(exit_model, "output '" + name + "' of " + model.filename().string() +
                                      " is not a tensor of numbers (a sequence, a map, an optional value or "
                                      "strings); run gives numeric tensors: make the model return the tensors "
                                      "themselves (a tuple, or torch.stack or torch.cat of a list) and re-export it");

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
  // An output whose shape the graph does not fix is lent no buffer: the
  // device asks for one (output_buffer) once it knows the run-time shape.
  for (const auto& name : graph.outputs) {
    const auto& t = graph.tensor(name);
    results.emplace_back(name, FloatArray{t.shape, std::vector<float>(t.fully_known() ? static_cast<size_t>(t.elements()) : 0)});
    out.push_back({name, t.fully_known() ? results.back().second.data.data() : nullptr,
                   results.back().second.data.size()});
  }

  json& report = outcome.report;
  // A weight the device has its own copy of is freed as soon as it says so.
  services.set_tensor_releaser([&weights](const std::string& name) {
    if (auto it = weights.find(name); it != weights.end()) std::vector<float>().swap(it->second);
  });
  services.set_output_allocator([&results](const std::string& name, const std::vector<int64_t>& dims) {
    return lend_run_time_output(results, name, dims);
  });
  struct ReleaseScope {
    HostServices& services;
    ~ReleaseScope() { services.set_tensor_releaser({}), services.set_output_allocator({}); }
  } release_scope{services};
  try {
    report = device.run_graph(run, in, out);
  } catch (const Error& e) {
    const int code = e.code() == StatusCode::unsupported ? exit_model
                     : e.code() == StatusCode::invalid_argument ? exit_usage : exit_tuning_failed;
    throw ExitError(code, "device " + component.name + " cannot run " + model.string() + ": " + e.what());
  }
  if (!report.value("outputs_computed", true)) results.clear();
  for (const auto& [name, array] : results)
    if (std::any_of(array.shape.begin(), array.shape.end(), [](int64_t d) { return d < 0; }))
      throw ExitError(exit_plugin, "device " + component.name + " wrote output '" + name +
                                       "', whose shape the model leaves open (" + dims_text(array.shape) +
                                       "), without asking the host for its buffer (output_buffer, SDK 1.6)");
  report["model"] = model.stem().string();
  report["device"] = component.name;
  report["soc_version"] = described.value("soc_version", component.name);
  report["bank_path"] = bank_root(settings, "op").root().string();
  report["inputs"] = json::array();
  for (const auto& [name, array] : inputs) report["inputs"].push_back({{"name", name}, {"shape", array.shape}});
  report["normalised"] = normalised.to_json();
  report["outputs"] = json::array();  // as the model ran: --outputs writes these shapes
  for (const auto& [name, array] : results) report["outputs"].push_back({{"name", name}, {"shape", array.shape}});
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
