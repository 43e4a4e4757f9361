// A Kernel Tuner T1 problem as a cuda task's plan: its parameters are the
// knobs, its conditions decide validity, its KernelFile with the config's
// #defines is the source, and its default config's outputs are the
// reference every other config is checked against (as Kernel Tuner does
// when it is given no answer).
#pragma once

#include <memory>

#include "cuda_options.h"
#include "kernel_plan.h"
#include "parameter_space.h"
#include "t1_problem.h"

namespace aoe::cuda {

class T1Plan final : public KernelPlan {
 public:
  T1Plan(std::shared_ptr<const T1Problem> problem, const CudaOptions& options);

  sdk::TuningSpace space() const override { return tuning_space_; }
  sdk::Measurement check(const sdk::Config& config) const override { return space_.check(config); }
  sdk::Config default_config() const override { return tuning_space_.default_config; }
  std::string source(const sdk::Config& config) const override;
  std::vector<std::string> compile_options() const override;
  LaunchGeometry launch(const sdk::Config& config) const override;
  std::string kernel_name() const override { return problem_->kernel_name; }
  std::vector<ArgumentData> arguments() const override;
  std::optional<std::string> expected_outputs() const override { return std::nullopt; }
  std::vector<nlohmann::json> values(const sdk::Config& config) const override { return space_.values(config); }

 private:
  sdk::Config first_valid_default() const;

  std::shared_ptr<const T1Problem> problem_;
  replay::ParameterSpace space_;
  sdk::TuningSpace tuning_space_;
  uint64_t seed_;
};

}  // namespace aoe::cuda
