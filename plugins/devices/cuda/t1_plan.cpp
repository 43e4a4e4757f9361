#include "t1_plan.h"

#include "argument_data.h"
#include "kernel_source.h"
#include "t1_launch.h"

namespace aoe::cuda {
namespace {

// How the GPU worker compares an output of this type.
std::string dtype_of(ElementType type) {
  switch (type) {
    case ElementType::float32: return "float32";
    case ElementType::float64: return "float64";
    default: return to_string(type);  // compared byte for byte
  }
}

}  // namespace

T1Plan::T1Plan(std::shared_ptr<const T1Problem> problem, const CudaOptions& options)
    : problem_(std::move(problem)), space_(problem_->parameters), seed_(options.seed) {
  tuning_space_ = space_.space();
  tuning_space_.default_config = first_valid_default();
}

sdk::Config T1Plan::first_valid_default() const {
  // The description's defaults where they form a valid config, as the replay
  // device takes them; else the first valid config in the knobs' order.
  std::vector<nlohmann::json> defaults;
  for (const auto& p : problem_->parameters.parameters)
    defaults.push_back(p.default_value ? *p.default_value : p.values.front());
  if (auto config = space_.config_of(defaults); config && space_.check(*config).ok()) return *config;
  std::optional<sdk::Config> first;
  sdk::for_each_config(space_.space(), [&](const sdk::Config& c) {
    if (!first && space_.check(c).ok()) first = c;
  });
  return first ? *first : space_.space().default_config;
}

std::string T1Plan::source(const sdk::Config& config) const {
  const auto values = space_.values(config);
  return t1_kernel_source(*problem_, values, t1_launch(*problem_, values));
}

std::vector<std::string> T1Plan::compile_options() const { return t1_compile_options(*problem_); }

LaunchGeometry T1Plan::launch(const sdk::Config& config) const { return t1_launch(*problem_, space_.values(config)); }

std::vector<ArgumentData> T1Plan::arguments() const {
  std::vector<ArgumentData> out;
  for (const auto& a : problem_->arguments) {
    const auto data = t1_initial_data(a, seed_);
    ArgumentData arg;
    arg.name = a.name;
    arg.buffer = !a.scalar;
    arg.constant = a.constant_memory;
    arg.output = a.output;
    arg.dtype = dtype_of(a.type);
    arg.bytes.assign(reinterpret_cast<const char*>(data.data()), data.size());
    out.push_back(std::move(arg));
  }
  return out;
}

}  // namespace aoe::cuda
