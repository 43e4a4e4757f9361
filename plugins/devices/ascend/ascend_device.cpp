#include "ascend_device.h"

#include <algorithm>
#include <cmath>

#include "acl_op_run.h"
#include "soc_mapping.h"

namespace aoe::ascend {
namespace {

std::shared_ptr<AclRuntime> open_runtime(const AscendOptions& options) {
  const auto library = find_acl_library(options.acl_library);
  if (library.empty()) throw sdk::Error(sdk::StatusCode::not_found, kAclMissing);
  return std::make_shared<AclRuntime>(library, options.device_id);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The median absolute deviation relative to the median: 0 when every run took as long.
double relative_spread(const std::vector<double>& times, double mid) {
  if (mid <= 0) return 0;
  std::vector<double> deviations;
  for (double t : times) deviations.push_back(std::abs(t - mid));
  return median(deviations) / mid;
}

}  // namespace

std::string listing_summary() {
  const auto library = find_acl_library("");
  if (library.empty()) return kAclMissing;
  return "an Ascend NPU through AscendCL (" + library.string() + "): Format and Impl tuning of MatMul, Gemm and Conv";
}

AscendTask::AscendTask(std::shared_ptr<AclRuntime> runtime, OpPlan plan, std::shared_ptr<const cpu::HostCpu> host,
                       std::unique_ptr<cpu::CpuOp> reference, const AscendOptions& options)
    : runtime_(std::move(runtime)),
      plan_(std::move(plan)),
      host_(std::move(host)),
      reference_(std::move(reference)),
      options_(options) {}

const cpu::TaskData& AscendTask::data() {
  if (!data_) data_ = std::make_unique<cpu::TaskData>(cpu::make_task_data(*reference_, options_.seed));
  return *data_;
}

sdk::Built AscendTask::build(const sdk::Config& config) {
  if (runtime_->lost()) return sdk::Built::failed(sdk::ResultStatus::build_failed, runtime_->lost_reason());
  try {
    runtime_->bind_thread();
    AclCallArgs(*runtime_, plan_, config).compile();
  } catch (const AclFailure& e) {
    return sdk::Built::failed(sdk::ResultStatus::build_failed, e.what());
  }
  return sdk::Built::ok(std::make_unique<AscendCandidate>(config));
}

std::vector<sdk::Measurement> AscendTask::measure(const std::vector<sdk::Candidate*>& batch,
                                                  const sdk::MeasureOptions& options) {
  std::vector<sdk::Measurement> out;
  for (auto* candidate : batch) out.push_back(measure_one(static_cast<AscendCandidate*>(candidate)->config(), options));
  return out;
}

sdk::Measurement AscendTask::measure_one(const sdk::Config& config, const sdk::MeasureOptions& options) {
  if (runtime_->lost()) return sdk::Measurement::failed(sdk::ResultStatus::run_failed, runtime_->lost_reason());
  const AclApi& acl = runtime_->api();
  const cpu::TaskData& expected = data();
  std::vector<double> times_us;
  try {
    runtime_->bind_thread();
    AclOpRun run(*runtime_, plan_, config, expected.inputs);
    // aclopCompileAndExecute compiles on a cache miss, under the options set now.
    runtime_->check(acl.aclSetCompileopt(ACL_OP_SELECT_IMPL_MODE, plan_.impl_mode(config).c_str()), "aclSetCompileopt");
    const aclrtStream stream = runtime_->stream();
    run.enqueue();
    runtime_->check(acl.aclrtSynchronizeStream(stream), "aclrtSynchronizeStream");
    const auto got = run.output();
    const auto& want = expected.expected.at(0);
    const std::string mismatch =
        cpu::compare(got.data(), want.data(), static_cast<int64_t>(want.size()), options_.tolerance);
    if (!mismatch.empty()) return sdk::Measurement::failed(sdk::ResultStatus::wrong_result, mismatch);
    for (uint32_t i = 1; i < options.warmup; ++i) run.enqueue();  // the checked run was the first
    const uint32_t repeats = std::max(1u, options.repeats);
    for (uint32_t r = 0; r < repeats; ++r) {
      runtime_->check(acl.aclrtRecordEvent(runtime_->start_event(), stream), "aclrtRecordEvent");
      run.enqueue();
      runtime_->check(acl.aclrtRecordEvent(runtime_->end_event(), stream), "aclrtRecordEvent");
      runtime_->check(acl.aclrtSynchronizeEvent(runtime_->end_event()), "aclrtSynchronizeEvent");
      float ms = 0;
      runtime_->check(acl.aclrtEventElapsedTime(&ms, runtime_->start_event(), runtime_->end_event()),
                      "aclrtEventElapsedTime");
      times_us.push_back(static_cast<double>(ms) * 1000.0);
    }
  } catch (const AclFailure& e) {
    // The run's memory and descriptors are gone by now; the device is reset before the next candidate.
    std::string message = e.what();
    if (!runtime_->reset()) message += "; " + runtime_->lost_reason();
    return sdk::Measurement::failed(sdk::ResultStatus::run_failed, message);
  }
  const double mid = median(times_us);
  return sdk::Measurement::timed(mid, relative_spread(times_us, mid), static_cast<uint32_t>(times_us.size()));
}

AscendDevice::AscendDevice(const sdk::CreateArgs& args)
    : options_(AscendOptions::parse(args.options)),
      runtime_(open_runtime(options_)),
      host_(std::make_shared<const cpu::HostCpu>(cpu::detect_host_cpu())) {}

nlohmann::json AscendDevice::describe() const {
  const SocIdentity soc = map_soc_name(runtime_->soc_name());
  return {{"soc_version", soc.soc_version},
          {"soc_name", runtime_->soc_name()},
          {"simulator_target", soc.target},
          {"device_id", runtime_->device_id()},
          {"device_count", runtime_->device_count()},
          {"acl_library", runtime_->library_path().string()},
          {"tunes", {"Format", "Impl"}},
          {"fused_op_types", fusable_op_types()}};
}

std::unique_ptr<sdk::DeviceTask> AscendDevice::prepare(const sdk::OpTask& task) {
  if (runtime_->lost()) throw sdk::Error(sdk::StatusCode::unsupported, runtime_->lost_reason());
  OpPlan plan = plan_op(task);
  auto reference = cpu::make_op(task, *host_);
  return std::make_unique<AscendTask>(runtime_, std::move(plan), host_, std::move(reference), options_);
}

}  // namespace aoe::ascend
