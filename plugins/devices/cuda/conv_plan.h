// A Conv or ConvTranspose op (with the Add and unary ops OPAT fuses after it) as a cuda
// task's plan: its kernel (conv_kernel.h) over its knobs, the implicit
// GEMM's tiles or the direct kernel's threads (conv_tiling.h), fed the same inputs as the cpu device's reference
// kernel, whose outputs every config is checked against.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "aoe/sdk/graph.h"
#include "aoe/sdk/op_task.h"
#include "conv_kernel.h"
#include "conv_tiling.h"
#include "cuda_options.h"
#include "gpu_limits.h"
#include "kernel_plan.h"
#include "op_kernel.h"
#include "reference_data.h"

namespace aoe::cuda {

class ConvPlan final : public KernelPlan {
 public:
  // Throws sdk::Error(unsupported) for ops fused after the Conv its
  // epilogue does not apply, or dims not all known.
  ConvPlan(const sdk::OpTask& task, const GpuLimits& limits, const CudaOptions& options);

  sdk::TuningSpace space() const override { return space_; }
  sdk::Measurement check(const sdk::Config& config) const override;
  sdk::Config default_config() const override { return space_.default_config; }
  std::string source(const sdk::Config& config) const override { return kernel(config).source; }
  std::vector<std::string> compile_options() const override { return {"--std=c++14"}; }
  LaunchGeometry launch(const sdk::Config& config) const override { return kernel(config).launch; }
  std::string kernel_name() const override { return kOpKernelName; }
  std::vector<ArgumentData> arguments() const override { return data_.get().arguments; }
  std::optional<std::string> expected_outputs() const override { return data_.get().expected; }
  std::vector<nlohmann::json> values(const sdk::Config& config) const override { return {config.begin(), config.end()}; }
  // fp32 sums of the window in another order than the double-precision reference.
  double atol(const sdk::Config&) const override { return 1e-3; }

 private:
  OpKernel kernel(const sdk::Config& config) const;

  sdk::Graph graph_;  // the Conv and the ops fused after it, its tensors named as its kernel reads them
  ConvEpilogue epilogue_;
  GpuLimits limits_;
  sdk::TuningSpace space_;
  LazyPlanData data_;
};

}  // namespace aoe::cuda
