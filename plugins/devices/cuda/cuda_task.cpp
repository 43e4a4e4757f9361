#include "cuda_task.h"

#include <atomic>

namespace aoe::cuda {
namespace {

uint64_t next_task_id() {
  static std::atomic<uint64_t> id{0};
  return ++id;
}

sdk::ResultStatus status_named(const std::string& name) {
  if (name == "ok") return sdk::ResultStatus::ok;
  if (name == "build_failed") return sdk::ResultStatus::build_failed;
  if (name == "wrong_result") return sdk::ResultStatus::wrong_result;
  if (name == "invalid") return sdk::ResultStatus::invalid;
  return sdk::ResultStatus::run_failed;
}

}  // namespace

CudaTask::CudaTask(std::shared_ptr<CudaContext> context, std::unique_ptr<KernelPlan> plan)
    : context_(std::move(context)), plan_(std::move(plan)), id_(next_task_id()) {}

std::shared_future<Compiled> CudaTask::compile(const sdk::Config& config) {
  CompileJob job;
  job.source = plan_->source(config);
  job.program_name = plan_->kernel_name() + ".cu";
  job.options = plan_->compile_options();
  job.options.push_back("--gpu-architecture=" + context_->architecture);
  job.kernel_name = plan_->kernel_name();
  return context_->compiler->submit(std::move(job));
}

sdk::Built CudaTask::build(const sdk::Config& config) {
  return sdk::Built::ok(std::make_unique<CudaCandidate>(config, compile(config)));
}

void CudaTask::prepare_setup() {
  if (!setup_.empty()) return;
  Frame arguments{"arguments", {{"arguments", nlohmann::json::array()}}, {}};
  for (const auto& a : plan_->arguments()) {
    arguments.header["arguments"].push_back({{"name", a.name},
                                             {"kind", a.buffer ? "buffer" : "scalar"},
                                             {"constant", a.constant},
                                             {"output", a.output},
                                             {"dtype", a.dtype},
                                             {"bytes", a.bytes.size()}});
    arguments.blob += a.bytes;
  }
  setup_.push_back(std::move(arguments));
  if (auto expected = plan_->expected_outputs()) {
    setup_.push_back({"reference", {}, std::move(*expected)});
    reference_known_ = true;
  }
}

void CudaTask::take_reference(const std::vector<sdk::Candidate*>& batch, const sdk::MeasureOptions& options,
                              std::vector<std::optional<sdk::Measurement>>& measured) {
  const sdk::Config config = plan_->default_config();
  sdk::Measurement m;
  size_t at = 0;
  while (at < batch.size() && static_cast<CudaCandidate*>(batch[at])->config() != config) ++at;
  if (at < batch.size()) {
    // OPAT times the default first: its measurement in the batch is the one that keeps the outputs.
    m = evaluate(*static_cast<CudaCandidate*>(batch[at]), options, true);
    measured[at] = m;
  } else {
    const Compiled compiled = compile(config).get();
    std::vector<double> times;
    m = compiled.ok ? run(config, compiled, options, true, times)
                    : sdk::Measurement::failed(sdk::ResultStatus::build_failed, log_tail(compiled.log));
  }
  if (!m.ok()) reference_note_ = "outputs unchecked: the default config, whose outputs are the reference, failed (" +
                                 m.message + ")";
  reference_known_ = true;
}

sdk::Measurement CudaTask::run(const sdk::Config& config, const Compiled& compiled, const sdk::MeasureOptions& options,
                               bool keep_as_reference, std::vector<double>& times_ms) {
  const CudaOptions& o = context_->options;
  const LaunchGeometry launch = plan_->launch(config);
  const double rtol = plan_->rtol(config), atol = plan_->atol(config);  // < 0: the options'
  Frame request{"run",
                {{"kernel", compiled.lowered_name},
                 {"grid", launch.grid},
                 {"block", launch.block},
                 {"shared_bytes", launch.shared_bytes},
                 {"warmup", std::max(1u, options.warmup)},
                 {"min_repeats", std::max(1u, options.repeats)},
                 {"max_repeats", std::max(o.max_repeats, options.repeats)},
                 {"stable_within", o.stable_within},
                 {"max_seconds", o.max_seconds},
                 {"flush_l2", o.flush_l2},
                 {"check", true},
                 {"keep_as_reference", keep_as_reference},
                 {"zero_outputs", plan_->zeroes_outputs(config)},
                 {"rtol", rtol >= 0 ? rtol : o.rtol},
                 {"atol", atol >= 0 ? atol : o.atol}},
                compiled.cubin};
  const Frame reply = context_->worker->call(id_, setup_, request, o.timeout_s);
  const std::string message = reply.header.value("message", "");
  if (reply.kind == "timeout") return sdk::Measurement::failed(sdk::ResultStatus::timeout, message);
  if (reply.kind != "result") return sdk::Measurement::failed(sdk::ResultStatus::run_failed, message);
  const auto status = status_named(reply.header.value("status", "run_failed"));
  if (status != sdk::ResultStatus::ok) return sdk::Measurement::failed(status, message);
  if (keep_as_reference) setup_.push_back({"reference", {}, reply.blob});
  times_ms = reply.header.value("times_ms", std::vector<double>{});
  sdk::Measurement m = sdk::Measurement::timed(reply.header.value("median_ms", 0.0) * 1000,
                                               reply.header.value("noise", 0.0),
                                               static_cast<uint32_t>(times_ms.size()));
  // The clock the GPU ran at, where NVML says: a throttled GPU explains a slow sample.
  if (reply.header.contains("sm_clock_mhz"))
    m.message = "sm clock " + std::to_string(reply.header["sm_clock_mhz"].get<unsigned>()) + " MHz, " +
                std::to_string(reply.header.value("temperature_c", 0u)) + " C";
  if (!reference_note_.empty()) m.message += (m.message.empty() ? "" : "; ") + reference_note_;
  return m;
}

sdk::Measurement CudaTask::evaluate(const CudaCandidate& candidate, const sdk::MeasureOptions& options,
                                    bool keep_as_reference) {
  const Compiled& compiled = candidate.compiled();
  std::vector<double> times;
  const sdk::Measurement m =
      compiled.ok ? run(candidate.config(), compiled, options, keep_as_reference, times)
                  : sdk::Measurement::failed(sdk::ResultStatus::build_failed, log_tail(compiled.log));
  if (context_->record) {
    std::lock_guard<std::mutex> lock(context_->record_mutex);
    context_->record(plan_->values(candidate.config()), m, times, compiled.compile_ms);
  }
  return m;
}

std::vector<sdk::Measurement> CudaTask::measure(const std::vector<sdk::Candidate*>& batch,
                                                const sdk::MeasureOptions& options) {
  prepare_setup();
  std::vector<std::optional<sdk::Measurement>> measured(batch.size());
  if (!reference_known_) take_reference(batch, options, measured);
  std::vector<sdk::Measurement> out;
  for (size_t i = 0; i < batch.size(); ++i)
    out.push_back(measured[i] ? *measured[i] : evaluate(*static_cast<CudaCandidate*>(batch[i]), options, false));
  return out;
}

}  // namespace aoe::cuda
