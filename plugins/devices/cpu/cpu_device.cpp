#include "cpu_device.h"

#include <algorithm>
#include <functional>

#include "aoe/sdk/error.h"
#include "worker.h"

namespace aoe::cpu {
namespace {

// The machine as the options cap it: fewer threads, narrower instruction sets.
std::shared_ptr<const HostCpu> capped_host(const CpuOptions& options) {
  HostCpu host = detect_host_cpu();
  if (options.threads > 0) {
    if (options.threads > host.threads)
      throw sdk::Error(sdk::StatusCode::invalid_argument,
                       "cpu option 'threads' is " + std::to_string(options.threads) + " but this process may use " +
                           std::to_string(host.threads) + " CPUs");
    host.threads = options.threads;
  }
  if (options.isa) {
    if (!host.runs(*options.isa))
      throw sdk::Error(sdk::StatusCode::invalid_argument,
                       std::string("cpu option 'isa' is ") + isa_name(*options.isa) + " but this CPU does not run it");
    host.isas.erase(std::remove_if(host.isas.begin(), host.isas.end(), [&](Isa i) { return i > *options.isa; }),
                    host.isas.end());
  }
  return std::make_shared<const HostCpu>(std::move(host));
}

using Evaluate = std::function<sdk::Measurement(const CpuCandidate&, const EvaluateOptions&, ThreadPool&)>;

// Each candidate evaluated in a worker process (or here, with isolation
// "none"), each worker with its own thread pool.
std::vector<sdk::Measurement> measure_candidates(const std::vector<sdk::Candidate*>& batch,
                                                 const sdk::MeasureOptions& options, const CpuOptions& cpu,
                                                 int host_threads, std::unique_ptr<ThreadPool>& own_pool,
                                                 const Evaluate& evaluate) {
  std::vector<const CpuCandidate*> candidates;
  for (auto* c : batch) candidates.push_back(dynamic_cast<const CpuCandidate*>(c));
  EvaluateOptions eval;
  eval.timing = cpu.timing;
  eval.timing.warmup = options.warmup;
  eval.timing.min_repeats = std::max<uint32_t>(1, options.repeats);
  eval.rtol = cpu.rtol;
  const int threads = std::max(1, host_threads);
  std::unique_ptr<ThreadPool> worker_pool;  // made in each worker, on its first job
  auto job = [&](size_t i) -> sdk::Measurement {
    const CpuCandidate* c = candidates[i];
    if (!c) return sdk::Measurement::failed(sdk::ResultStatus::run_failed, "not a candidate of this device");
    ThreadPool* pool;
    if (cpu.isolate) {
      if (!worker_pool) worker_pool = std::make_unique<ThreadPool>(threads);
      pool = worker_pool.get();
    } else {
      if (!own_pool) own_pool = std::make_unique<ThreadPool>(threads);
      pool = own_pool.get();
    }
    try {
      return evaluate(*c, eval, *pool);
    } catch (const std::exception& e) {
      return sdk::Measurement::failed(sdk::ResultStatus::run_failed, e.what());
    }
  };
  if (!cpu.isolate) {
    std::vector<sdk::Measurement> out;
    for (size_t i = 0; i < candidates.size(); ++i) out.push_back(job(i));
    return out;
  }
  return run_isolated(candidates.size(), job, WorkerOptions{cpu.timeout_s});
}

}  // namespace

CpuTask::CpuTask(std::shared_ptr<const HostCpu> host, std::unique_ptr<CpuOp> op, CpuOptions options)
    : host_(std::move(host)), op_(std::move(op)), options_(options) {}

sdk::Measurement CpuTask::check(const sdk::Config& config) const {
  if (!op_->space().in_domain(config))
    return sdk::Measurement::failed(sdk::ResultStatus::invalid, "a value lies outside its knob's domain");
  auto why = op_->check(config);
  if (!why.empty()) return sdk::Measurement::failed(sdk::ResultStatus::invalid, why);
  return {};
}

sdk::Built CpuTask::build(const sdk::Config& config) {
  auto verdict = check(config);
  if (!verdict.ok()) return sdk::Built::failed(verdict.status, verdict.message);
  const uint64_t n = ++built_;
  const Fault fault = options_.fault != Fault::none && n % options_.fault_every == 0 ? options_.fault : Fault::none;
  return sdk::Built::ok(std::make_unique<CpuCandidate>(config, fault));
}

const TaskData& CpuTask::data() {
  std::call_once(data_once_, [&] { data_ = std::make_unique<TaskData>(make_task_data(*op_, options_.seed)); });
  return *data_;
}

std::vector<sdk::Measurement> CpuTask::measure(const std::vector<sdk::Candidate*>& batch,
                                               const sdk::MeasureOptions& options) {
  const TaskData& inputs = data();  // in the parent, once: every worker inherits it
  return measure_candidates(batch, options, options_, host_->threads, pool_,
                            [&](const CpuCandidate& c, const EvaluateOptions& eval, ThreadPool& pool) {
                              return evaluate(*op_, c.config(), inputs, eval, pool, c.fault());
                            });
}

CpuSubgraphTask::CpuSubgraphTask(std::shared_ptr<const HostCpu> host, std::unique_ptr<SubgraphOp> op,
                                 CpuOptions options)
    : host_(std::move(host)), op_(std::move(op)), options_(options) {}

sdk::Measurement CpuSubgraphTask::check(const sdk::Config& config) const {
  if (!op_->space().in_domain(config))
    return sdk::Measurement::failed(sdk::ResultStatus::invalid, "a value lies outside its knob's domain");
  try {
    op_->lower(config);
  } catch (const sdk::Error& e) {
    return sdk::Measurement::failed(sdk::ResultStatus::invalid, e.what());
  }
  return {};
}

sdk::Built CpuSubgraphTask::build(const sdk::Config& config) {
  auto verdict = check(config);
  if (!verdict.ok()) return sdk::Built::failed(verdict.status, verdict.message);
  const uint64_t n = ++built_;
  const Fault fault = options_.fault != Fault::none && n % options_.fault_every == 0 ? options_.fault : Fault::none;
  return sdk::Built::ok(std::make_unique<CpuCandidate>(config, fault));
}

const SubgraphData& CpuSubgraphTask::data() {
  std::call_once(data_once_, [&] { data_ = std::make_unique<SubgraphData>(make_subgraph_data(*op_, options_.seed)); });
  return *data_;
}

std::vector<sdk::Measurement> CpuSubgraphTask::measure(const std::vector<sdk::Candidate*>& batch,
                                                       const sdk::MeasureOptions& options) {
  const SubgraphData& given = data();  // in the parent, once, references included
  return measure_candidates(batch, options, options_, host_->threads, pool_,
                            [&](const CpuCandidate& c, const EvaluateOptions& eval, ThreadPool& pool) {
                              return evaluate_subgraph(*op_, c.config(), given, eval, pool, c.fault());
                            });
}

CpuDevice::CpuDevice(const sdk::CreateArgs& args) : CpuDevice(CpuOptions::parse(args.options)) {}

CpuDevice::CpuDevice(CpuOptions options) : options_(options), host_(capped_host(options_)) {}

nlohmann::json CpuDevice::describe() const {
  auto d = cpu::describe(*host_);
  d["op_types"] = supported_op_types();
  d["fused_op_types"] = fusable_op_types();
  d["dtypes"] = {"float32"};
  d["measurement"] = options_.describe();
  // Building a candidate only checks its config: safe from any thread.
  d["concurrent_build"] = true;
  // Whole subgraphs run for real: fuse:, layout: (NCHW, NCHWc) and tiling: knobs.
  d["subgraphs"] = true;
  d["subgraph_knobs"] = {"fuse", "layout", "tiling"};
  return d;
}

std::unique_ptr<CpuTask> CpuDevice::prepare_cpu(const sdk::OpTask& task) {
  return std::make_unique<CpuTask>(host_, make_op(task, *host_), options_);
}

std::unique_ptr<sdk::DeviceTask> CpuDevice::prepare(const sdk::OpTask& task) { return prepare_cpu(task); }

std::unique_ptr<CpuSubgraphTask> CpuDevice::prepare_cpu_subgraph(const sdk::SubgraphTask& task) {
  return std::make_unique<CpuSubgraphTask>(host_, std::make_unique<SubgraphOp>(task, host_), options_);
}

std::unique_ptr<sdk::DeviceTask> CpuDevice::prepare_subgraph(const sdk::SubgraphTask& task) {
  return prepare_cpu_subgraph(task);
}

}  // namespace aoe::cpu
