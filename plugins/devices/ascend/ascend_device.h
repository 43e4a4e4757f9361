// The Ascend NPU through AscendCL: each candidate compiled and run with
// aclopCompileAndExecute on a stream, timed with events, checked against
// the cpu device's reference; a failure is data, followed by a device reset.
#pragma once

#include <nlohmann/json.hpp>

#include <memory>
#include <vector>

#include "acl_op_plan.h"
#include "acl_runtime.h"
#include "aoe/sdk/device.h"
#include "aoe/sdk/component.h"
#include "ascend_options.h"
#include "cpu_op.h"
#include "evaluate.h"

namespace aoe::ascend {

// The text `aoe-host plugins` shows: what the device is and where its
// libascendcl.so lies, or that it is unavailable.
std::string listing_summary();

// A config whose calls compiled.
class AscendCandidate final : public sdk::Candidate {
 public:
  explicit AscendCandidate(sdk::Config config) : config_(std::move(config)) {}
  const sdk::Config& config() const { return config_; }

 private:
  sdk::Config config_;
};

class AscendTask final : public sdk::DeviceTask {
 public:
  AscendTask(std::shared_ptr<AclRuntime> runtime, OpPlan plan, std::shared_ptr<const cpu::HostCpu> host,
             std::unique_ptr<cpu::CpuOp> reference, const AscendOptions& options);

  sdk::TuningSpace space() const override { return plan_.space; }
  sdk::Built build(const sdk::Config& config) override;
  std::vector<sdk::Measurement> measure(const std::vector<sdk::Candidate*>& batch,
                                        const sdk::MeasureOptions& options) override;

 private:
  sdk::Measurement measure_one(const sdk::Config& config, const sdk::MeasureOptions& options);
  const cpu::TaskData& data();

  std::shared_ptr<AclRuntime> runtime_;  // a task may outlive its device
  OpPlan plan_;
  std::shared_ptr<const cpu::HostCpu> host_;  // the reference op refers to it
  std::unique_ptr<cpu::CpuOp> reference_;
  AscendOptions options_;
  std::unique_ptr<cpu::TaskData> data_;
};

class AscendDevice final : public sdk::Device {
 public:
  // Throws sdk::Error(not_found) with kAclMissing when there is no
  // libascendcl.so, or naming the call that failed to open the NPU.
  explicit AscendDevice(const sdk::CreateArgs& args);

  nlohmann::json describe() const override;
  std::unique_ptr<sdk::DeviceTask> prepare(const sdk::OpTask& task) override;

 private:
  AscendOptions options_;
  std::shared_ptr<AclRuntime> runtime_;
  std::shared_ptr<const cpu::HostCpu> host_;
};

}  // namespace aoe::ascend
