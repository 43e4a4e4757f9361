#include "cpu_device.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <string>

#include "aoe/sdk/error.h"
#include "held_dtype.h"
#include "model_run.h"
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
    host.physical_cores = std::min(host.physical_cores, host.threads);
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

using Bind = std::function<BoundKernel(const CpuCandidate&)>;

// Results put in their places as they are reported; runs passed on to
// `runs`, where given (a worker's pipe).
class Collect final : public WorkerProgress {
 public:
  explicit Collect(std::vector<sdk::Measurement>& out, WorkerProgress* runs = nullptr) : out_(out), runs_(runs) {}
  void begin(size_t) override {}
  void report(size_t index, const sdk::Measurement& m) override { out_[index] = m; }
  void ran() override {
    if (runs_) runs_->ran();
  }

 private:
  std::vector<sdk::Measurement>& out_;
  WorkerProgress* runs_;
};

// Each candidate built, bound and checked by a first run; those that pass
// are then timed in turns, so their ratios hold on a loaded machine. In one
// worker process for the batch (or here, with isolation "none"); when that
// worker dies or overruns, in a worker each, to find the one that did it.
std::vector<sdk::Measurement> measure_candidates(const std::vector<sdk::Candidate*>& batch,
                                                 const sdk::MeasureOptions& options, const CpuOptions& cpu,
                                                 int host_threads, std::unique_ptr<ThreadPool>& own_pool,
                                                 const std::vector<std::vector<float>>& expected, const Bind& bind) {
  std::vector<const CpuCandidate*> candidates;
  for (auto* c : batch) candidates.push_back(dynamic_cast<const CpuCandidate*>(c));
  EvaluateOptions eval;
  eval.timing = cpu.timing;
  eval.timing.warmup = options.warmup;
  eval.timing.min_repeats = std::max<uint32_t>(1, options.repeats);
  eval.tolerance = cpu.tolerance;
  const int threads = std::max(1, host_threads);
  std::unique_ptr<ThreadPool> worker_pool;  // made in each worker, on its first job
  auto pool = [&]() -> ThreadPool& {
    auto& p = cpu.isolate ? worker_pool : own_pool;
    if (!p) p = std::make_unique<ThreadPool>(threads);
    return *p;
  };
  // The candidates at `indices`, each reported as soon as it is known.
  auto measure = [&](const std::vector<size_t>& indices, WorkerProgress& progress) {
    std::vector<BoundKernel> bound;
    std::vector<Kernel*> passed;
    std::vector<size_t> passed_at;
    bound.reserve(indices.size());
    for (size_t i : indices) {
      progress.begin(1);
      const CpuCandidate* c = candidates[i];
      if (!c) {
        progress.report(i, sdk::Measurement::failed(sdk::ResultStatus::run_failed, "not a candidate of this device"));
        continue;
      }
      try {
        bound.push_back(bind(*c));
        if (auto failed = first_run(*bound.back().kernel, expected, eval, pool(), c->fault())) {
          progress.report(i, *failed);
          continue;
        }
        passed.push_back(bound.back().kernel.get());
        passed_at.push_back(i);
      } catch (const std::exception& e) {
        progress.report(i, sdk::Measurement::failed(sdk::ResultStatus::run_failed, e.what()));
      }
    }
    if (passed.empty()) return;
    progress.begin(passed.size());
    try {
      const auto timed = time_checked(passed, expected, eval, pool(), [&] { progress.ran(); });
      for (size_t j = 0; j < passed.size(); ++j) progress.report(passed_at[j], timed[j]);
    } catch (const std::exception& e) {
      for (size_t i : passed_at) progress.report(i, sdk::Measurement::failed(sdk::ResultStatus::run_failed, e.what()));
    }
  };
  std::vector<size_t> all(candidates.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  std::vector<sdk::Measurement> out(candidates.size());
  if (!cpu.isolate) {
    Collect into(out);
    measure(all, into);
    return out;
  }
  const WorkerOptions worker{cpu.timeout_s};
  if (candidates.size() > 1 && run_together(candidates.size(), [&](WorkerProgress& p) { measure(all, p); }, worker, out))
    return out;
  return run_isolated(candidates.size(),
                      [&](size_t i, WorkerProgress& runs) {
                        std::vector<sdk::Measurement> one(candidates.size());
                        Collect into(one, &runs);
                        measure({i}, into);
                        return one[i];
                      },
                      worker);
}

// The candidate of a config, or why it cannot be one (`verdict`, check()'s);
// every fault_every-th build counted in `built` carries the fault option's fault.
sdk::Built build_candidate(const sdk::Config& config, const sdk::Measurement& verdict, std::atomic<uint64_t>& built,
                           const CpuOptions& options) {
  if (!verdict.ok()) return sdk::Built::failed(verdict.status, verdict.message);
  const uint64_t n = ++built;
  const Fault fault = options.fault != Fault::none && n % options.fault_every == 0 ? options.fault : Fault::none;
  return sdk::Built::ok(std::make_unique<CpuCandidate>(config, fault));
}

// Why the op refuses `config`, if it does: CpuOp::check()'s word, or the
// subgraph's failure to lower it.
std::optional<std::string> refusal(const CpuOp& op, const sdk::Config& config) {
  auto why = op.check(config);
  if (why.empty()) return std::nullopt;
  return why;
}

std::optional<std::string> refusal(const SubgraphOp& op, const sdk::Config& config) {
  try {
    op.lower(config);
  } catch (const sdk::Error& e) {
    return e.what();
  }
  return std::nullopt;
}

// The inputs and expected outputs a task measures against, and a
// candidate's kernel bound to them: an op's, or a subgraph's run whole.
TaskData make_data(const CpuOp& op, uint64_t seed) { return make_task_data(op, seed); }
SubgraphData make_data(const SubgraphOp& op, uint64_t seed) { return make_subgraph_data(op, seed); }

BoundKernel bound(const CpuOp& op, const sdk::Config& config, const TaskData& data) {
  return bind_kernel(op, config, data);
}

BoundKernel bound(const SubgraphOp& op, const sdk::Config& config, const SubgraphData& data) {
  return bind_subgraph(op, config, data);
}

}  // namespace

template <class Op, class Data>
sdk::Measurement CpuDeviceTask<Op, Data>::check(const sdk::Config& config) const {
  if (!op_->space().in_domain(config))
    return sdk::Measurement::failed(sdk::ResultStatus::invalid, "a value lies outside its knob's domain");
  if (auto why = refusal(*op_, config)) return sdk::Measurement::failed(sdk::ResultStatus::invalid, *why);
  return {};
}

template <class Op, class Data>
sdk::Built CpuDeviceTask<Op, Data>::build(const sdk::Config& config) {
  return build_candidate(config, check(config), built_, options_);
}

template <class Op, class Data>
const Data& CpuDeviceTask<Op, Data>::data() {
  std::call_once(data_once_, [&] { data_ = std::make_unique<Data>(make_data(*op_, options_.seed)); });
  return *data_;
}

template <class Op, class Data>
std::vector<sdk::Measurement> CpuDeviceTask<Op, Data>::measure(const std::vector<sdk::Candidate*>& batch,
                                                               const sdk::MeasureOptions& options) {
  const Data& given = data();  // in the parent, once (a subgraph's references included): every worker inherits it
  return measure_candidates(batch, options, options_, host_->threads, pool_, given.expected,
                            [&](const CpuCandidate& c) { return bound(*op_, c.config(), given); });
}

template class CpuDeviceTask<CpuOp, TaskData>;
template class CpuDeviceTask<SubgraphOp, SubgraphData>;

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
  // Its timings are this machine's cores: tuners running beside it on them skew them.
  d["measures_on_host_cpus"] = true;
  // Whole subgraphs run for real: fuse:, layout: (NCHW, NCHWc) and tiling: knobs.
  d["subgraphs"] = true;
  d["subgraph_knobs"] = {"fuse", "layout", "tiling"};
  return d;
}

namespace {

// Tuning measures the kernels in the dtype the op has: a float16 or float64
// op, which a model run computes in float32, would be tuned under float32's
// memory traffic.
void require_own_precision(const std::string& task, const sdk::TensorDesc& t) {
  if (computed_in_f32(t.dtype))
    throw sdk::Error(sdk::StatusCode::unsupported,
                     "the cpu device tunes float32, integer and bool ops: '" + task + "' tensor '" + t.name + "' is " +
                         sdk::to_string(t.dtype) + ", which it runs computed in float32 (aoe-host run) but does not tune");
}

}  // namespace

std::unique_ptr<CpuTask> CpuDevice::prepare_cpu(const sdk::OpTask& task) {
  for (const auto* list : {&task.inputs, &task.outputs})
    for (const auto& t : *list) require_own_precision(task.name, t);
  return std::make_unique<CpuTask>(host_, make_op(task, *host_), options_);
}

std::unique_ptr<sdk::DeviceTask> CpuDevice::prepare(const sdk::OpTask& task) { return prepare_cpu(task); }

std::unique_ptr<CpuSubgraphTask> CpuDevice::prepare_cpu_subgraph(const sdk::SubgraphTask& task) {
  for (const auto& [name, t] : task.graph.tensors) require_own_precision(task.name, t);
  return std::make_unique<CpuSubgraphTask>(host_, std::make_unique<SubgraphOp>(task, host_), options_);
}

std::unique_ptr<sdk::DeviceTask> CpuDevice::prepare_subgraph(const sdk::SubgraphTask& task) {
  return prepare_cpu_subgraph(task);
}

nlohmann::json CpuDevice::run_graph(const sdk::GraphRun& run, const std::vector<sdk::TensorView>& inputs,
                                    const std::vector<sdk::TensorView>& outputs) {
  return run_model(run, inputs, outputs, host_, options_.tolerance,
                   [](const std::string& name) { sdk::plugin_host().release_tensor(name); },
                   [](const std::string& name, const std::vector<int64_t>& dims) {
                     return sdk::plugin_host().output_buffer(name, dims);
                   });
}

}  // namespace aoe::cpu
