#include "model_gradients.h"

#include <algorithm>
#include <map>
#include <set>

namespace aoe::gdat {
namespace {

using aoe::sdk::DType;

using aoe::sdk::is_float;

// Which inputs of an op are its parameters; -1 stands for every input.
const std::map<std::string, std::vector<int>>& weight_inputs() {
  static const std::map<std::string, std::vector<int>> table = {
      {"Conv", {1, 2}},          {"ConvTranspose", {1, 2}},      {"Gemm", {-1}},
      {"MatMul", {-1}},          {"Einsum", {-1}},               {"BatchNormalization", {1, 2}},
      {"InstanceNormalization", {1, 2}}, {"LayerNormalization", {1, 2}}, {"GroupNormalization", {1, 2}},
      {"SkipLayerNormalization", {2, 3, 4}}, {"PRelu", {1}},     {"Gather", {0}},
      {"LSTM", {1, 2, 3}},       {"GRU", {1, 2, 3}},             {"RNN", {1, 2, 3}},
      {"Add", {-1}},             {"Sub", {-1}},                  {"Mul", {-1}},
      {"Div", {-1}}};
  return table;
}

bool is_weight_input(const aoe::sdk::Node& node, size_t index) {
  const auto it = weight_inputs().find(node.op_type);
  if (it == weight_inputs().end()) return false;
  for (int i : it->second)
    if (i < 0 || static_cast<size_t>(i) == index) return true;
  return false;
}

// A scalar is a hyperparameter (epsilon, 1/sqrt(d)), not a trained weight.
bool trainable(const aoe::sdk::TensorDesc& t) { return t.constant && is_float(t.dtype) && t.fully_known() && t.elements() > 1; }

}  // namespace

std::string comparable_name(const std::string& name) {
  std::string out = name;
  std::replace(out.begin(), out.end(), '/', '.');
  return out;
}

std::vector<TrainableTensor> trainable_tensors(const aoe::sdk::Graph& graph) {
  std::vector<TrainableTensor> forward;  // in the order their first reader runs
  std::set<std::string> seen;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const auto& node = graph.nodes[n];
    std::vector<TrainableTensor> mine;
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      const auto& name = node.inputs[i];
      if (name.empty() || seen.count(name) || !is_weight_input(node, i)) continue;
      const auto it = graph.tensors.find(name);
      if (it == graph.tensors.end() || !trainable(it->second)) continue;
      seen.insert(name);
      mine.push_back({name, static_cast<uint64_t>(it->second.elements()) * aoe::sdk::dtype_bytes(it->second.dtype), n});
    }
    forward.insert(forward.end(), mine.begin(), mine.end());
  }
  std::reverse(forward.begin(), forward.end());
  return forward;
}

GradientProfile profile_from_model(const std::vector<TrainableTensor>& tensors, const std::vector<double>& backward_us,
                                   double forward_us, const std::string& source) {
  // done[i]: backward has run nodes size-1 down to i.
  std::vector<double> done(backward_us.size() + 1, 0);
  for (size_t i = backward_us.size(); i-- > 0;) done[i] = done[i + 1] + backward_us[i];
  GradientProfile p;
  for (const auto& t : tensors) p.grads.push_back({t.name, t.bytes, done[std::min(t.node, backward_us.size())]});
  p.backward_us = done[0];
  p.forward_us = forward_us;
  p.source = source;
  return p;
}

}  // namespace aoe::gdat
