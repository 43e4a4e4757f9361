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
#include "cachefile_writer.h"
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

// A config's values as the cachefile writes them.
std::vector<nlohmann::json> config_values(const TuningSpace& space, const Config& c) {
  std::vector<nlohmann::json> out;
  for (size_t k = 0; k < c.size(); ++k) out.push_back(space.knobs[k].display(c[k]));
  return out;
}

// One config's record: the time in ms with its repeats, and what the
// recording took (the simulator's build and timing, in ms of this machine).
aoe::replay::Record measure(const TuningSpace& space, const Config& c, aoe::sdk::DeviceTask& task) {
  using aoe::replay::Outcome;
  aoe::replay::Record r;
  r.values = config_values(space, c);
  const auto start = std::chrono::steady_clock::now();
  auto built = task.build(c);
  const auto built_at = std::chrono::steady_clock::now();
  const auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
  r.compile_ms = ms(start, built_at);
  if (!built.candidate) {
    r.outcome = Outcome::compile_failed;
    return r;
  }
  aoe::sdk::MeasureOptions options;
  const auto m = task.measure({built.candidate.get()}, options).at(0);
  r.benchmark_ms = ms(built_at, std::chrono::steady_clock::now());
  if (!m.ok()) {
    r.outcome = Outcome::runtime_failed;
    return r;
  }
  r.time_ms = m.time_us / 1000;
  r.times_ms.assign(std::max<uint32_t>(m.repeats, 1), r.time_ms);
  return r;
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

  aoe::replay::Cachefile header;
  header.device_name = soc_version;
  header.kernel_name = op.op_type;
  header.problem_size = op.inputs.empty() ? nlohmann::json::array() : nlohmann::json(op.inputs[0].shape);
  for (const auto& knob : space.knobs) {
    header.keys.push_back(knob.name);
    header.domains.emplace_back();
    for (auto v : knob.values) header.domains.back().push_back(knob.display(v));
  }
  header.objective = o.layout == "current" ? "time" : "";

  fs::create_directories(o.out);
  const fs::path cachefile = o.out / (o.name + "_" + o.soc + ".json");
  aoe::replay::CachefileWriter writer(cachefile, std::move(header));
  // Kernel Tuner records only the configs its restrictions allow: the device's check is the restriction.
  aoe::sdk::for_each_config(space, [&](const Config& c) {
    if (task->check(c).ok()) writer.add(measure(space, c, *task));
  });
  writer.save();
  std::printf("wrote %s: %zu of %.0f configs of %s on %s\n", cachefile.string().c_str(), writer.size(), space.size(),
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
