#include "step_builder.h"

namespace aoe::training {

StepBuilder::StepBuilder(const Graph& forward, bool mixed) : mixed_(mixed) {
  graph_.name = forward.name + "_training_step";
  graph_.opset = forward.opset;
  graph_.tensors = forward.tensors;
}

std::string StepBuilder::add_tensor(const std::string& hint, std::vector<int64_t> shape, DType dtype, bool constant) {
  std::string name = hint;
  for (int n = 2; graph_.tensors.count(name); ++n) name = hint + "_" + std::to_string(n);
  TensorDesc t;
  t.name = name;
  t.shape = std::move(shape);
  t.dtype = dtype;
  t.constant = constant;
  graph_.tensors[name] = t;
  return name;
}

std::string StepBuilder::add_kernel(const std::string& forward_node, const std::string& op_type,
                                    std::vector<std::string> inputs, std::vector<std::string> outputs,
                                    nlohmann::json attrs) {
  const std::string hint = forward_node + "/" + op_type;
  int& seen = kernel_names_[hint];
  const std::string name = ++seen == 1 ? hint : hint + "_" + std::to_string(seen);
  graph_.nodes.push_back({name, op_type, std::move(inputs), std::move(outputs), std::move(attrs)});
  forward_of_[name] = forward_node;
  return name;
}

std::string StepBuilder::add_unary(const std::string& forward_node, const std::string& op_type,
                                   std::vector<std::string> inputs, std::vector<int64_t> shape, DType dtype,
                                   nlohmann::json attrs) {
  const std::string out = add_tensor(forward_node + "/" + op_type + ":0", std::move(shape), dtype);
  add_kernel(forward_node, op_type, std::move(inputs), {out}, std::move(attrs));
  return out;
}

}  // namespace aoe::training
