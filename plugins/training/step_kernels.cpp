#include "step_kernels.h"

#include "gradient_rules.h"

namespace aoe::training {

std::string cann_kernel_name(const StepKernel& kernel) {
  if (!kernel.fusion.empty()) return kernel.fusion;
  const auto& task = kernel.op.task;
  if (task.op_type == "BatchMatMul" && task.inputs.size() == 2 && task.inputs[0].shape.size() == 2 &&
      task.inputs[1].shape.size() == 2)
    return "MatMul";
  static const std::map<std::string, std::string> names = {
      {"Conv", "Conv2D"},           {"Gemm", "MatMul"},      {"LayerNormalization", "LayerNorm"},
      {"Gelu", "GeLU"},             {"MaxPool", "MaxPoolWithArgmax"}, {"Div", "RealDiv"},
      {"ConvTranspose", "Conv2DTranspose"}};
  const auto it = names.find(task.op_type);
  return it == names.end() ? task.op_type : it->second;
}

bool runs_no_kernel(const StepKernel& kernel) {
  return kernel.op.op_types.size() == 1 && is_view(kernel.op.op_types.front());
}

std::map<std::string, size_t> kernel_counts(const std::vector<StepKernel>& kernels) {
  std::map<std::string, size_t> out;
  for (const auto& k : kernels)
    if (!runs_no_kernel(k)) ++out[cann_kernel_name(k)];
  return out;
}

std::set<std::string> every_follower() {
  std::set<std::string> out;
  for (const auto& rule : step_fusion_rules()) out.insert(rule.followers.begin(), rule.followers.end());
  return out;
}

}  // namespace aoe::training
