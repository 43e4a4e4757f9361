// The graph of a training step as it is written: kernels appended in the
// order they run, each new tensor and kernel named uniquely, and each kernel
// mapped to the forward node it comes from.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

#include "aoe/sdk/graph.h"

namespace aoe::training {

using aoe::sdk::DType;
using aoe::sdk::Graph;
using aoe::sdk::Node;
using aoe::sdk::TensorDesc;

class StepBuilder {
 public:
  StepBuilder(const Graph& forward, bool mixed);

  Graph& graph() { return graph_; }
  const Graph& graph() const { return graph_; }
  const TensorDesc& tensor(const std::string& name) const { return graph_.tensor(name); }
  // float16 in mixed precision, else float32: activations and their gradients.
  DType activation() const { return mixed_ ? DType::f16 : DType::f32; }
  bool mixed() const { return mixed_; }

  // A new tensor named `hint`, or `hint` with a suffix where the name is taken.
  std::string add_tensor(const std::string& hint, std::vector<int64_t> shape, DType dtype, bool constant = false);
  // A kernel `<forward_node>/<op_type>` reading `inputs`, writing `outputs`.
  std::string add_kernel(const std::string& forward_node, const std::string& op_type,
                         std::vector<std::string> inputs, std::vector<std::string> outputs,
                         nlohmann::json attrs = nlohmann::json::object());
  // A kernel with one new output of `shape` and `dtype`; returns the output.
  std::string add_unary(const std::string& forward_node, const std::string& op_type, std::vector<std::string> inputs,
                        std::vector<int64_t> shape, DType dtype, nlohmann::json attrs = nlohmann::json::object());

  const std::map<std::string, std::string>& forward_of() const { return forward_of_; }
  void set_forward_of(const std::string& kernel, const std::string& forward_node) { forward_of_[kernel] = forward_node; }

 private:
  std::string unique(const std::string& hint, const std::map<std::string, int>& used);

  Graph graph_;
  bool mixed_;
  std::map<std::string, int> kernel_names_;
  std::map<std::string, std::string> forward_of_;
};

}  // namespace aoe::training
