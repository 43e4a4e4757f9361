// Records a simulated op's whole tuning space as Kernel Tuner does an
// exhaustive run on a GPU: every config the device accepts, built and
// timed, in a cachefile the replay device reads back. So the replay device
// and the searcher scores have spaces of known optimum without anyone's
// recordings, in both of Kernel Tuner's layouts:
//   current: the cachefile (with "objective") and a BAT/T4 `*.kernel.json`
//            description holding the parameters' values and defaults;
//   older:   the cachefile alone, parameters inside, no "objective".
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "aoe/sdk/op_task.h"
#include "aoe/sdk/atomic_file.h"
#include "sim_device.h"
#include "soc_files.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::ordered_json;
using aoe::sdk::Config;
using aoe::sdk::TuningSpace;

struct Options {
  std::string soc = "ascend910";
  fs::path task;
  fs::path out;
  std::string name;
  std::string layout = "current";
  double max_configs = 2e5;  // an exhaustive walk beyond this takes minutes: refuse it
};

int usage(int code) {
  std::fprintf(code ? stderr : stdout,
               "usage: aoe_record_space --task task.json --out DIR --name NAME [--soc TARGET|FILE.yaml]\n"
               "                        [--layout current|older] [--max-configs N]\n"
               "Times every config of the op in task.json (an op task as the SDK writes it: op_type, inputs\n"
               "with shape and dtype, attrs, fused_ops) on the simulated SoC (default ascend910) and writes\n"
               "DIR/NAME_<soc>.json, a Kernel Tuner cachefile, and with --layout current (the default) the\n"
               "description DIR/NAME.kernel.json; --layout older writes the cachefile alone. Spaces of more\n"
               "than --max-configs configs (default 2e5) are refused.\n");
  return code;
}

// A parameter's values as Kernel Tuner writes them: numbers, or the labels of a choice.
ordered_json values_of(const aoe::sdk::Knob& knob) {
  ordered_json out = ordered_json::array();
  for (auto v : knob.values) out.push_back(ordered_json(knob.display(v)));
  return out;
}

std::string key_of(const TuningSpace& space, const Config& c) {
  std::string key;
  for (size_t k = 0; k < c.size(); ++k) {
    const auto shown = space.knobs[k].display(c[k]);
    key += (k ? "," : "") + (shown.is_string() ? shown.get<std::string>() : shown.dump());
  }
  return key;
}

// One cache entry: the parameters, the time in ms with its repeats, and what
// the recording took (the simulator's build and timing, in ms of this machine).
ordered_json entry(const TuningSpace& space, const Config& c, aoe::sdk::DeviceTask& task) {
  ordered_json e;
  for (size_t k = 0; k < c.size(); ++k) e[space.knobs[k].name] = ordered_json(space.knobs[k].display(c[k]));
  const auto start = std::chrono::steady_clock::now();
  auto built = task.build(c);
  const auto built_at = std::chrono::steady_clock::now();
  const auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
  if (!built.candidate) {
    e["time"] = "CompilationFailedConfig";
    e["compile_time"] = ms(start, built_at);
    return e;
  }
  aoe::sdk::MeasureOptions options;
  const auto m = task.measure({built.candidate.get()}, options).at(0);
  const auto measured_at = std::chrono::steady_clock::now();
  if (!m.ok()) {
    e["time"] = "RuntimeFailedConfig";
  } else {
    e["time"] = m.time_us / 1000;
    e["times"] = ordered_json::array();
    for (uint32_t r = 0; r < std::max<uint32_t>(m.repeats, 1); ++r) e["times"].push_back(m.time_us / 1000);
  }
  e["compile_time"] = ms(start, built_at);
  e["benchmark_time"] = ms(built_at, measured_at);
  e["framework_time"] = 0.0;
  e["verification_time"] = 0.0;
  e["strategy_time"] = 0;
  return e;
}

ordered_json description(const Options& o, const TuningSpace& space, const std::string& kernel) {
  ordered_json params = ordered_json::array();
  for (size_t k = 0; k < space.knobs.size(); ++k) {
    const auto& knob = space.knobs[k];
    const bool numbers = knob.kind != aoe::sdk::DomainKind::categorical;
    params.push_back({{"Name", knob.name},
                      {"Type", numbers ? "int" : "string"},
                      {"Values", values_of(knob).dump()},
                      {"Default", ordered_json(knob.display(space.default_config.at(k)))}});
  }
  return {{"General", {{"BenchmarkName", o.name}, {"OutputFormat", "JSON"}}},
          {"ConfigurationSpace", {{"TuningParameters", params}, {"Conditions", ordered_json::array()}}},
          {"KernelSpecification", {{"Language", "aoe simulator"}, {"KernelName", kernel}}}};
}

int record(const Options& o) {
  std::ifstream in(o.task);
  if (!in) throw std::runtime_error("cannot read the task file " + o.task.string());
  const auto task_json = nlohmann::json::parse(in, nullptr, false);
  if (task_json.is_discarded()) throw std::runtime_error("the task file " + o.task.string() + " is not JSON");
  const auto op = task_json.get<aoe::sdk::OpTask>();

  aoe::sim::SimDevice device(aoe::sim::load_soc(o.soc), aoe::sim::SimOptions{});
  const std::string soc_version = device.describe().value("soc_version", o.soc);
  auto task = device.prepare(op);
  const TuningSpace space = task->space();
  if (space.size() > o.max_configs)
    throw std::runtime_error("the space of " + op.op_type + " has " + std::to_string(space.size()) +
                             " configs, more than --max-configs");

  ordered_json doc;
  doc["device_name"] = soc_version;
  doc["kernel_name"] = op.op_type;
  doc["problem_size"] = op.inputs.empty() ? ordered_json::array() : ordered_json(op.inputs[0].shape);
  doc["tune_params_keys"] = ordered_json::array();
  doc["tune_params"] = ordered_json::object();
  for (const auto& knob : space.knobs) {
    doc["tune_params_keys"].push_back(knob.name);
    doc["tune_params"][knob.name] = values_of(knob);
  }
  if (o.layout == "current") doc["objective"] = "time";
  doc["cache"] = ordered_json::object();
  // The cache is written entry by entry, in the walk's order: an ordered
  // object of that many keys would cost a search per insertion.
  std::string cache;
  size_t recorded = 0;
  // Kernel Tuner records only the configs its restrictions allow: the device's check is the restriction.
  aoe::sdk::for_each_config(space, [&](const Config& c) {
    if (!task->check(c).ok()) return;
    cache += (recorded ? ",\n" : "\n") + ordered_json(key_of(space, c)).dump() + ": " + entry(space, c, *task).dump();
    ++recorded;
  });
  std::string text = doc.dump();
  text.insert(text.size() - 2, cache + "\n");  // into the "cache":{} that closes the document

  fs::create_directories(o.out);
  const fs::path cachefile = o.out / (o.name + "_" + o.soc + ".json");
  aoe::sdk::write_atomically(cachefile, text + "\n");
  std::printf("wrote %s: %zu of %.0f configs of %s on %s\n", cachefile.string().c_str(), recorded, space.size(),
              op.op_type.c_str(), soc_version.c_str());
  if (o.layout == "current") {
    const fs::path kernel = o.out / (o.name + ".kernel.json");
    aoe::sdk::write_atomically(kernel, description(o, space, op.op_type).dump(4) + "\n");
    std::printf("wrote %s\n", kernel.string().c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") return usage(0);
    if (i + 1 >= argc) return usage(2);
    const std::string value = argv[++i];
    if (arg == "--soc") o.soc = value;
    else if (arg == "--task") o.task = value;
    else if (arg == "--out") o.out = value;
    else if (arg == "--name") o.name = value;
    else if (arg == "--layout") o.layout = value;
    else if (arg == "--max-configs") o.max_configs = std::strtod(value.c_str(), nullptr);
    else return usage(2);
  }
  if (o.task.empty() || o.out.empty() || o.name.empty() || (o.layout != "current" && o.layout != "older"))
    return usage(2);
  try {
    std::string path = AOE_SIM_SOC_DIR;  // the source tree's SoC files, after any the user names
    if (const char* env = std::getenv("AOE_SIM_SOC_PATH"); env && *env) path = std::string(env) + ":" + path;
    setenv("AOE_SIM_SOC_PATH", path.c_str(), 1);
    return record(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "aoe_record_space: %s\n", e.what());
    return 1;
  }
}
