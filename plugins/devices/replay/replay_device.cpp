#include "replay_device.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "aoe/sdk/error.h"
#include "aoe/sdk/path_component.h"

namespace aoe::replay {
namespace {

using sdk::Error;
using sdk::Measurement;
using sdk::ResultStatus;
using sdk::StatusCode;

std::shared_ptr<const RecordedSpace> load(const ReplayOptions& options) {
  Cachefile cache = read_cachefile(options.cachefile, options.max_bytes);
  if (!options.device_name.empty()) cache.device_name = options.device_name;
  if (cache.device_name.empty())
    throw Error(StatusCode::invalid_argument,
                "cachefile " + options.cachefile.string() +
                    " names no device_name, nor does its file name end in a GPU's (kernel_A100.json, as "
                    "benchmark_hub names them): give the GPU it was recorded on with the option device_name");
  std::optional<KernelDescription> kernel;
  if (options.kernel) kernel = read_kernel_description(*options.kernel);
  return std::make_shared<const RecordedSpace>(std::move(cache), std::move(kernel));
}

// What build() charges: the compile time, or everything when the build fails
// and nothing is measured after it.
double build_ms(const Record& r) { return r.outcome == Outcome::compile_failed ? r.cost_ms() : r.compile_ms; }

}  // namespace

ReplayOptions ReplayOptions::parse(const nlohmann::json& options, const std::string& component) {
  ReplayOptions out;
  auto path = [&](const std::string& key, const nlohmann::json& value) {
    if (!value.is_string() || value.get<std::string>().empty())
      throw Error(StatusCode::invalid_argument, component + " option '" + key + "' must be a file path");
    return std::filesystem::path(value.get<std::string>());
  };
  for (const auto& [key, value] : options.items()) {
    if (key == "cachefile") {
      out.cachefile = path(key, value);
    } else if (key == "kernel") {
      out.kernel = path(key, value);
    } else if (key == "noise") {
      if (value == "off")
        out.noise = Noise::off;
      else if (value == "recorded")
        out.noise = Noise::recorded;
      else
        throw Error(StatusCode::invalid_argument, component + " option 'noise' must be \"off\" (the recorded time) or "
                                                              "\"recorded\" (drawn from the recorded repeats), not " +
                                                              value.dump());
    } else if (key == "seed") {
      if (!value.is_number_integer() || (!value.is_number_unsigned() && value.get<int64_t>() < 0))
        throw Error(StatusCode::invalid_argument, component + " option 'seed' must be an integer >= 0");
      out.seed = value.get<uint64_t>();
    } else if (key == "device_name") {
      if (!value.is_string() || value.get<std::string>().empty())
        throw Error(StatusCode::invalid_argument, component + " option 'device_name' must be a name, e.g. \"A100\"");
      out.device_name = value.get<std::string>();
    } else if (key == "max_inflated_mb") {
      if (!value.is_number_integer() || value.get<int64_t>() < 1 || value.get<int64_t>() > (int64_t{1} << 40))
        throw Error(StatusCode::invalid_argument, component + " option 'max_inflated_mb' must be an integer in 1.." +
                                                      std::to_string(uint64_t{1} << 40) + " (MiB)");
      out.max_bytes = value.get<uint64_t>() << 20;
    } else {
      throw Error(StatusCode::invalid_argument, component + " has no option '" + key +
                                                    "' (it takes cachefile, kernel, noise, seed, device_name, "
                                                    "max_inflated_mb)");
    }
  }
  if (out.cachefile.empty())
    throw Error(StatusCode::invalid_argument,
                component + " needs option 'cachefile': a Kernel Tuner cachefile (.json or .json.gz)");
  return out;
}

ReplayTask::ReplayTask(std::shared_ptr<const RecordedSpace> recorded, ReplayOptions::Noise noise, uint64_t seed,
                       std::shared_ptr<SimulatedClock> device_clock)
    : recorded_(std::move(recorded)), noise_(noise), rng_(seed), device_clock_(std::move(device_clock)) {}

void ReplayTask::charge(double ms, bool new_evaluation) {
  clock_.advance(ms, new_evaluation);
  if (device_clock_) device_clock_->advance(ms, new_evaluation);
}

double ReplayTask::cost_s(const sdk::Config& config) const {
  if (!recorded_->check(config).ok()) return 0;
  return recorded_->record(config)->cost_ms() / 1000;
}

sdk::Built ReplayTask::build(const sdk::Config& config) {
  const Measurement verdict = recorded_->check(config);
  if (!verdict.ok()) return sdk::Built::failed(verdict.status, verdict.message);
  const Record& r = *recorded_->record(config);
  charge(build_ms(r), true);
  if (r.outcome == Outcome::compile_failed)
    return sdk::Built::failed(ResultStatus::build_failed, "recorded as CompilationFailedConfig");
  return sdk::Built::ok(std::make_unique<ReplayCandidate>(r));
}

std::vector<Measurement> ReplayTask::measure(const std::vector<sdk::Candidate*>& batch,
                                             const sdk::MeasureOptions& options) {
  std::vector<Measurement> out;
  out.reserve(batch.size());
  for (const auto* candidate : batch) {
    const auto* replay = dynamic_cast<const ReplayCandidate*>(candidate);
    if (!replay) {
      out.push_back(Measurement::failed(ResultStatus::run_failed, "not a candidate of this device"));
      continue;
    }
    const Record& r = replay->record();
    charge(r.cost_ms() - build_ms(r), false);
    if (r.outcome == Outcome::runtime_failed)
      out.push_back(Measurement::failed(ResultStatus::run_failed, "recorded as RuntimeFailedConfig"));
    else
      out.push_back(timed(r, std::max<uint32_t>(1, options.repeats)));
  }
  return out;
}

// Kernel Tuner's time is the mean of its repeats; with noise, the mean of
// `repeats` of them drawn again.
Measurement ReplayTask::timed(const Record& r, uint32_t repeats) {
  if (noise_ == ReplayOptions::Noise::off || r.times_ms.empty()) return Measurement::timed(r.time_ms * 1000, 0, 1);
  std::uniform_int_distribution<size_t> pick(0, r.times_ms.size() - 1);
  std::vector<double> drawn(repeats);
  for (auto& d : drawn) d = r.times_ms[pick(rng_)];
  const double mean = std::accumulate(drawn.begin(), drawn.end(), 0.0) / repeats;
  double var = 0;
  for (double d : drawn) var += (d - mean) * (d - mean);
  return Measurement::timed(mean * 1000, mean > 0 ? std::sqrt(var / repeats) / mean : 0, repeats);
}

ReplayDevice::ReplayDevice(const sdk::CreateArgs& args) : ReplayDevice(ReplayOptions::parse(args.options, args.component)) {}

ReplayDevice::ReplayDevice(ReplayOptions options)
    : options_(std::move(options)), recorded_(load(options_)), clock_(std::make_shared<SimulatedClock>()) {}

nlohmann::json ReplayDevice::describe() const {
  const auto& cache = recorded_->cachefile();
  const auto& space = recorded_->space();
  const auto& counts = recorded_->counts();
  const Record& best = recorded_->optimum();
  const Record& base = *recorded_->record(space.default_config);
  nlohmann::json out = {
      // The bank's folder for this device: its name with what cannot name a folder replaced.
      {"soc_version", sdk::path_component_from(cache.device_name)},
      {"device_name", cache.device_name},
      {"kernel", cache.kernel_name},
      {"cachefile", cache.path.string()},
      {"cachefile_left_open", cache.left_open},
      {"kernel_description", options_.kernel ? nlohmann::json(options_.kernel->string()) : nlohmann::json()},
      {"problem_size", cache.problem_size},
      {"configs",
       {{"space", space.size()},
        {"recorded", counts.recorded},
        {"valid", counts.valid},
        {"failed", counts.failed()},
        {"compile_failed", counts.compile_failed},
        {"runtime_failed", counts.runtime_failed},
        {"invalid", counts.invalid}}},
      {"optimum", {{"time_us", best.time_ms * 1000}, {"config", space.describe(*recorded_->config_of(best))}}},
      {"default",
       {{"time_us", base.time_ms * 1000},
        {"config", space.describe(space.default_config)},
        {"source", recorded_->default_source()}}},
      {"noise", options_.noise == ReplayOptions::Noise::off ? "off" : "recorded"},
      {"seed", options_.seed},
      {"simulated_time_s", clock_->seconds()},
      {"evaluations", clock_->evaluations()},
      {"concurrent_build", true},  // build() only looks a record up: safe from any thread
      {"fused_op_types", nlohmann::json::array()},
  };
  return out;
}

std::unique_ptr<ReplayTask> ReplayDevice::prepare_replay(const sdk::OpTask& task) {
  const auto& cache = recorded_->cachefile();
  if (task.op_type != cache.kernel_name)
    throw Error(StatusCode::unsupported, "replay of " + cache.path.filename().string() + " runs op '" +
                                             cache.kernel_name + "' (the recorded kernel_name), not '" + task.op_type + "'");
  return std::make_unique<ReplayTask>(recorded_, options_.noise, options_.seed, clock_);
}

std::unique_ptr<sdk::DeviceTask> ReplayDevice::prepare(const sdk::OpTask& task) { return prepare_replay(task); }

}  // namespace aoe::replay
