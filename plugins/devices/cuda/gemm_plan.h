// A MatMul or Gemm op (with the epilogue OPAT fused into it) as a cuda
// task's plan: aoe's GEMM template over its tiling knobs, fed the same
// inputs as the cpu device's reference kernel, whose outputs every config
// is checked against (the default config's, past a size the reference
// would take minutes on).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "aoe/sdk/op_task.h"
#include "cuda_options.h"
#include "gemm_problem.h"
#include "gemm_template.h"
#include "gpu_limits.h"
#include "kernel_plan.h"
#include "reference_data.h"

namespace aoe::cuda {

// The GPU's limits as the worker reported them (gpu_session.h).
GpuLimits gpu_limits_of(const nlohmann::json& properties);

// The op types the GEMM's epilogue takes after a MatMul or Gemm, for OPAT's fusion.
std::vector<std::string> gemm_epilogue_op_types();

class GemmPlan final : public KernelPlan {
 public:
  // Throws sdk::Error(unsupported) for what the template does not compute.
  GemmPlan(const sdk::OpTask& task, const GpuLimits& limits, const CudaOptions& options);

  sdk::TuningSpace space() const override { return space_; }
  sdk::Measurement check(const sdk::Config& config) const override;
  sdk::Config default_config() const override { return space_.default_config; }
  std::string source(const sdk::Config& config) const override;
  std::vector<std::string> compile_options() const override { return {"--std=c++14"}; }
  LaunchGeometry launch(const sdk::Config& config) const override;
  std::string kernel_name() const override { return "aoe_gemm"; }
  std::vector<ArgumentData> arguments() const override { return data_.get().arguments; }
  std::optional<std::string> expected_outputs() const override { return data_.get().expected; }
  std::vector<nlohmann::json> values(const sdk::Config& config) const override { return {config.begin(), config.end()}; }
  // fp32 sums of K products in another order than the double-precision
  // reference; a TF32 product's inputs rounded too (gemm_tolerance).
  double rtol(const sdk::Config& config) const override;
  double atol(const sdk::Config& config) const override;
  // split_k blocks add their partial sums into C.
  bool zeroes_outputs(const sdk::Config& config) const override { return gemm_zeroes_output(config); }

 private:
  GemmProblem problem_;
  GpuLimits limits_;
  sdk::TuningSpace space_;
  LazyPlanData data_;  // expected: none for GEMMs too large for the cpu's reference
};

}  // namespace aoe::cuda
