#include "gemm_plan.h"

#include "gemm_template.h"
#include "reference_data.h"

namespace aoe::cuda {

GpuLimits gpu_limits_of(const nlohmann::json& p) {
  GpuLimits limits;
  const auto take = [&](const char* key, int& into) {
    if (p.contains(key) && p[key].is_number_integer() && p[key].get<int>() > 0) into = p[key].get<int>();
  };
  take("max_threads_per_block", limits.max_threads_per_block);
  take("max_shared_bytes_per_block", limits.max_shared_bytes_per_block);
  take("max_registers_per_block", limits.max_registers_per_block);
  take("warp_size", limits.warp_size);
  take("multiprocessors", limits.multiprocessors);
  const auto cc = p.find("compute_capability");
  if (cc != p.end() && cc->is_array() && cc->size() == 2 && (*cc)[0].is_number_integer() && (*cc)[1].is_number_integer())
    limits.compute_capability = (*cc)[0].get<int>() * 10 + (*cc)[1].get<int>();
  return limits;
}

std::vector<std::string> gemm_epilogue_op_types() { return {"Add", "Relu", "Gelu"}; }

namespace {

// The cpu device's reference kernel gives the inputs and the outputs to match.
PlanData gemm_data(const sdk::OpTask& task, const GemmProblem& problem, uint64_t seed) {
  const cpu::TaskData data = reference_data(task, seed, problem.flops() / 2);
  PlanData out;
  out.arguments.push_back(buffer("A", bytes_of(data.inputs.at(0))));
  out.arguments.push_back(buffer("B", bytes_of(data.inputs.at(1))));
  // Without a bias or residual the kernel never reads it; a float keeps the pointer valid.
  const auto addend = [&](bool has, int input) {
    return has ? bytes_of(data.inputs.at(static_cast<size_t>(input))) : std::string(sizeof(float), '\0');
  };
  out.arguments.push_back(buffer("bias", addend(problem.has_bias, problem.bias_input)));
  out.arguments.push_back(buffer("residual", addend(problem.has_residual, problem.residual_input)));
  const size_t c_bytes = static_cast<size_t>(problem.batch * problem.m * problem.n) * sizeof(float);
  out.arguments.push_back(buffer("C", std::string(c_bytes, '\0'), true));
  if (!data.expected.empty()) out.expected = bytes_of(data.expected.at(0));
  return out;
}

GemmProblem with_precisions(GemmProblem p, const CudaOptions& options) {
  p.allowed = {options.allow_tf32, options.allow_fp16};
  return p;
}

}  // namespace

GemmPlan::GemmPlan(const sdk::OpTask& task, const GpuLimits& limits, const CudaOptions& options)
    : problem_(with_precisions(gemm_problem(task), options)),
      limits_(limits),
      space_(gemm_space(problem_)),
      data_([task, problem = problem_, seed = options.seed] { return gemm_data(task, problem, seed); }) {
  space_.default_config = gemm_default(problem_, limits_);
}

sdk::Measurement GemmPlan::check(const sdk::Config& config) const { return gemm_check(problem_, config, limits_); }

double GemmPlan::rtol(const sdk::Config& config) const { return gemm_tolerance(problem_, config).rtol; }

double GemmPlan::atol(const sdk::Config& config) const { return gemm_tolerance(problem_, config).atol; }

std::string GemmPlan::source(const sdk::Config& config) const { return gemm_source(problem_, config); }

LaunchGeometry GemmPlan::launch(const sdk::Config& config) const { return gemm_launch(problem_, config); }

}  // namespace aoe::cuda
