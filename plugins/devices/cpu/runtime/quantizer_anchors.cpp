#include "quantizer_anchors.h"

#include <algorithm>
#include <cmath>

namespace aoe::cpu {
namespace {

bool is_quantizer(const sdk::Node& node) {
  return node.op_type == "QuantizeLinear" || node.op_type == "DynamicQuantizeLinear";
}

// Elements one step apart, or -1 where any is further or the sizes differ.
int64_t steps_apart(const std::vector<float>& run, const std::vector<float>& ref) {
  if (run.size() != ref.size()) return -1;
  int64_t one = 0;
  for (size_t i = 0; i < run.size(); ++i) {
    const float d = std::fabs(run[i] - ref[i]);
    if (d == 0) continue;
    if (d != 1) return -1;
    ++one;
  }
  return one;
}

}  // namespace

std::vector<std::string> quantizer_outputs(const sdk::Graph& graph) {
  std::vector<std::string> written;
  for (const auto& node : graph.nodes)
    if (is_quantizer(node))
      for (const auto& o : node.outputs)
        if (!o.empty()) written.push_back(o);
  return written;
}

void QuantizerAnchors::anchor(const sdk::Node& node, std::map<std::string, std::vector<float>>& values) {
  if (!is_quantizer(node) || node.outputs.empty() || !run.count(node.outputs[0])) return;
  const std::string& y = node.outputs[0];
  const int64_t one = steps_apart(run.at(y), values.at(y));
  bool close = one >= 0 && static_cast<double>(one) <= std::max(1.0, 0.01 * static_cast<double>(values.at(y).size()));
  // DynamicQuantizeLinear's scale and zero point, from x's range.
  for (size_t o = 1; close && o < node.outputs.size(); ++o) {
    const auto held = run.find(node.outputs[o]);
    if (node.outputs[o].empty() || held == run.end()) continue;
    const auto& ref = values.at(node.outputs[o]);
    if (held->second.size() != 1 || ref.size() != 1) close = false;
    else if (o == 1) close = std::fabs(held->second[0] - ref[0]) <= 1e-5 * std::fabs(ref[0]);
    else close = held->second[0] == ref[0];
  }
  if (!close) {
    ++refused;
    return;
  }
  for (const auto& o : node.outputs)
    if (const auto held = run.find(o); !o.empty() && held != run.end()) values[o] = held->second;
  ++nodes;
  stepped += one;
}

nlohmann::json QuantizerAnchors::to_json() const {
  return {{"quantizers", nodes}, {"elements_one_step_apart", stepped}, {"quantizers_apart", refused}};
}

}  // namespace aoe::cpu
