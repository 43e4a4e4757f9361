// One op or problem on the GPU. build() hands the config's source to the
// compile pool and returns at once; measure() takes each candidate's cubin
// as it is ready and has the GPU worker check and time it, so the GPU times
// the candidates already compiled while the rest compile.
#pragma once

#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "aoe/sdk/device.h"
#include "compile_pool.h"
#include "cuda_options.h"
#include "gpu_worker.h"
#include "kernel_plan.h"

namespace aoe::cuda {

// What every task of one device shares.
struct CudaContext {
  CudaOptions options;
  std::unique_ptr<GpuWorker> worker;
  std::unique_ptr<CompilePool> compiler;
  std::string architecture;  // sm_XY of the GPU, for NVRTC
  std::string nvrtc_library;  // the NVRTC the pool compiles with: part of a cached kernel's key
  // Called with every config measured: its values, its result, the times
  // and what compiling it took. Set when the device records a cachefile.
  std::function<void(const std::vector<nlohmann::json>& values, const sdk::Measurement& result, const std::vector<double>& times_ms,
                     double compile_ms)>
      record;
  std::mutex record_mutex;
};

class CudaCandidate final : public sdk::Candidate {
 public:
  CudaCandidate(sdk::Config config, std::shared_future<Compiled> compiled)
      : config_(std::move(config)), compiled_(std::move(compiled)) {}
  const sdk::Config& config() const { return config_; }
  const Compiled& compiled() const { return compiled_.get(); }

 private:
  sdk::Config config_;
  std::shared_future<Compiled> compiled_;
};

class CudaTask final : public sdk::DeviceTask {
 public:
  CudaTask(std::shared_ptr<CudaContext> context, std::unique_ptr<KernelPlan> plan);

  sdk::TuningSpace space() const override { return plan_->space(); }
  sdk::Measurement check(const sdk::Config& config) const override { return plan_->check(config); }
  sdk::Built build(const sdk::Config& config) override;
  std::vector<sdk::Measurement> measure(const std::vector<sdk::Candidate*>& batch,
                                        const sdk::MeasureOptions& options) override;

 private:
  std::shared_future<Compiled> compile(const sdk::Config& config);
  sdk::Measurement run(const sdk::Config& config, const Compiled& compiled, const sdk::MeasureOptions& options,
                       bool keep_as_reference, std::vector<double>& times_ms);
  // The frames a fresh worker needs before this task's runs: its arguments and, once known, the reference.
  void prepare_setup();
  // Where the plan has no reference of its own: the default config's outputs,
  // as Kernel Tuner takes them. Measured from the batch where the default is
  // in it (its result goes into `measured`), else compiled and run apart.
  void take_reference(const std::vector<sdk::Candidate*>& batch, const sdk::MeasureOptions& options,
                      std::vector<std::optional<sdk::Measurement>>& measured);
  // One candidate checked and timed (its build failure, when it had one), and recorded.
  sdk::Measurement evaluate(const CudaCandidate& candidate, const sdk::MeasureOptions& options, bool keep_as_reference);

  std::shared_ptr<CudaContext> context_;
  std::unique_ptr<KernelPlan> plan_;
  uint64_t id_;
  std::vector<Frame> setup_;
  bool reference_known_ = false;
  std::string reference_note_;  // why outputs go unchecked, when they do
};

}  // namespace aoe::cuda
