#include "sim_device.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

#include "aoe/sdk/error.h"
#include "epilogue.h"
#include "memory_fit.h"
#include "soc_files.h"
#include "subgraph_model.h"
#include "training_models.h"

namespace aoe::sim {
namespace {

const char* const kAnySoc = "ascend_sim";

Soc soc_for(const std::string& component, const SimOptions& options) {
  if (component != kAnySoc) {
    if (!options.soc.empty())
      throw sdk::Error(sdk::StatusCode::invalid_argument, component + " has no option 'soc': it simulates " +
                                                              component + "; use " + kAnySoc + " to pick a SoC");
    return load_soc(component);
  }
  if (options.soc.empty())
    throw sdk::Error(sdk::StatusCode::invalid_argument,
                     std::string(kAnySoc) + " needs option 'soc': a SoC target or a path to a SoC YAML file");
  return load_soc(options.soc);
}

// A model handed out alone shares the SoC it refers to, so it may outlive
// the device that made it.
class SocSharingModel final : public OpModel {
 public:
  SocSharingModel(std::shared_ptr<const Soc> soc, std::unique_ptr<OpModel> model)
      : soc_(std::move(soc)), model_(std::move(model)) {}
  const sdk::TuningSpace& space() const override { return model_->space(); }
  sdk::Measurement check(const sdk::Config& config) const override { return model_->check(config); }
  double time_us(const sdk::Config& config) const override { return model_->time_us(config); }
  double roofline_us() const override { return model_->roofline_us(); }

 private:
  std::shared_ptr<const Soc> soc_;
  std::unique_ptr<OpModel> model_;
};

// Each task draws its own noise, seeded by what it computes, so a task's
// timings do not depend on which tasks were prepared before it.
uint64_t task_seed(uint64_t seed, const sdk::OpTask& task) {
  return seed ^ std::stoull(task.hash(), nullptr, 16);
}

}  // namespace

SimOptions SimOptions::parse(const nlohmann::json& options, const std::string& target) {
  SimOptions out;
  for (const auto& [key, value] : options.items()) {
    if (key == "noise") {
      if (!value.is_number() || value.get<double>() < 0)
        throw sdk::Error(sdk::StatusCode::invalid_argument, target + " option 'noise' must be a number >= 0");
      out.noise = value.get<double>();
    } else if (key == "seed") {
      if (!value.is_number_unsigned())
        throw sdk::Error(sdk::StatusCode::invalid_argument, target + " option 'seed' must be an integer >= 0");
      out.seed = value.get<uint64_t>();
    } else if (key == "soc") {
      if (!value.is_string() || value.get<std::string>().empty())
        throw sdk::Error(sdk::StatusCode::invalid_argument,
                         target + " option 'soc' must be a SoC target or a path to a SoC YAML file");
      out.soc = value.get<std::string>();
    } else {
      throw sdk::Error(sdk::StatusCode::invalid_argument,
                       target + " has no option '" + key + "' (it takes noise, seed, soc)");
    }
  }
  return out;
}

SimTask::SimTask(std::shared_ptr<const Soc> soc, std::unique_ptr<OpModel> model, SimOptions options,
                 uint64_t task_seed)
    : soc_(std::move(soc)), model_(std::move(model)), options_(options), rng_(task_seed) {}

sdk::Built SimTask::build(const sdk::Config& config) {
  auto verdict = model_->check(config);
  if (!verdict.ok()) return sdk::Built::failed(verdict.status, verdict.message);
  return sdk::Built::ok(std::make_unique<SimCandidate>(model_->time_us(config)));
}

std::vector<sdk::Measurement> SimTask::measure(const std::vector<sdk::Candidate*>& batch,
                                               const sdk::MeasureOptions& options) {
  std::vector<sdk::Measurement> out;
  out.reserve(batch.size());
  for (const auto* candidate : batch) {
    const auto* sim = dynamic_cast<const SimCandidate*>(candidate);
    if (!sim) {
      out.push_back(sdk::Measurement::failed(sdk::ResultStatus::run_failed, "not a candidate of this device"));
      continue;
    }
    out.push_back(timed(sim->time_us(), std::max<uint32_t>(1, options.repeats)));
  }
  return out;
}

// Interference only ever slows a kernel down, so noise is one-sided and a
// timing never beats the model; the median of the repeats is reported.
sdk::Measurement SimTask::timed(double model_us, uint32_t repeats) {
  if (options_.noise <= 0) return sdk::Measurement::timed(model_us, 0, 1);
  std::normal_distribution<double> z(0.0, 1.0);
  std::vector<double> samples(repeats);
  for (auto& s : samples) s = model_us * (1 + options_.noise * std::abs(z(rng_)));
  std::sort(samples.begin(), samples.end());
  const double median = repeats % 2 ? samples[repeats / 2] : (samples[repeats / 2 - 1] + samples[repeats / 2]) / 2;
  const double mean = std::accumulate(samples.begin(), samples.end(), 0.0) / repeats;
  double var = 0;
  for (double s : samples) var += (s - mean) * (s - mean);
  return sdk::Measurement::timed(median, std::sqrt(var / repeats) / mean, repeats);
}

SimDevice::SimDevice(const sdk::CreateArgs& args)
    : options_(SimOptions::parse(args.options, args.component)),
      owned_soc_(std::make_shared<const Soc>(soc_for(args.component, options_))),
      soc_(*owned_soc_) {}

SimDevice::SimDevice(Soc soc, SimOptions options)
    : options_(std::move(options)), owned_soc_(std::make_shared<const Soc>(std::move(soc))), soc_(*owned_soc_) {}

nlohmann::json SimDevice::describe() const {
  auto out = sim::describe(soc_);
  auto fusable = fused_op_types();
  for (auto& op : training_fused_op_types()) fusable.push_back(std::move(op));
  out["fused_op_types"] = fusable;
  out["noise"] = options_.noise;
  out["concurrent_build"] = true;  // build() only evaluates the model: safe from any thread
  out["subgraphs"] = true;         // prepare_subgraph() times whole subgraphs under a strategy
  return out;
}

std::unique_ptr<OpModel> SimDevice::model(const sdk::OpTask& task) const {
  return std::make_unique<SocSharingModel>(owned_soc_, op_model(soc_, task));
}

std::unique_ptr<sdk::DeviceTask> SimDevice::prepare(const sdk::OpTask& task) {
  require_fits_memory(soc_, task);
  return std::make_unique<SimTask>(owned_soc_, op_model(soc_, task), options_, task_seed(options_.seed, task));
}

std::unique_ptr<sdk::DeviceTask> SimDevice::prepare_subgraph(const sdk::SubgraphTask& task) {
  const auto fusable = fused_op_types();
  auto model = std::make_unique<SubgraphModel>(soc_, task, std::set<std::string>(fusable.begin(), fusable.end()));
  return std::make_unique<SimTask>(owned_soc_, std::move(model), options_,
                                   options_.seed ^ std::stoull(task.hash(), nullptr, 16));
}

nlohmann::json SimDevice::run_graph(const sdk::GraphRun& run, const std::vector<sdk::TensorView>&,
                                    const std::vector<sdk::TensorView>&) {
  if (run.check)
    throw sdk::Error(sdk::StatusCode::unsupported, "the simulator models time only: it has no outputs to check");
  sdk::SubgraphTask task;
  task.name = run.graph.name.empty() ? "model" : run.graph.name;
  task.graph = run.graph;
  task.op_configs = run.op_configs.is_object() ? run.op_configs : nlohmann::json::object();
  const auto prepared = prepare_subgraph(task);
  const auto space = prepared->space();
  const sdk::Config& strategy = space.default_config;
  sdk::Built built = prepared->build(strategy);
  if (!built.candidate) throw sdk::Error(sdk::StatusCode::internal, "the model cannot run: " + built.failure.message);
  sdk::MeasureOptions once;
  once.warmup = 0;
  once.repeats = 1;
  const auto timed = prepared->measure({built.candidate.get()}, once);
  if (timed.empty() || !timed[0].ok()) throw sdk::Error(sdk::StatusCode::internal, "the model cannot run: " + (timed.empty() ? std::string("no result") : timed[0].message));
  const double ms = timed[0].time_us / 1000.0;
  nlohmann::json kernels = nlohmann::json::array();
  for (const auto& anchor : sdk::SubgraphDecisions::of(space, strategy).tuned)
    kernels.push_back({{"anchor", anchor}, {"config_source", "bank"}});
  return {{"device", soc_.soc_version},
          {"modelled", true},
          {"outputs_computed", false},
          {"iterations", 1},
          {"latency_ms", {{"min", ms}, {"median", ms}, {"p90", ms}, {"runs", 1}}},
          {"tuned_kernel_count", kernels.size()},
          {"kernels", kernels}};
}

}  // namespace aoe::sim
