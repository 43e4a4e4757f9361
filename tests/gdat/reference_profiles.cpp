#include "reference_profiles.h"

#include <algorithm>
#include <string>
#include <vector>

#include "frontend/onnx_frontend.h"
#include "model_gradients.h"
#include "profile_source.h"

namespace aoe::gdat::test {
namespace {

constexpr double kFlopsPerUs = 100e6;  // 100 TFLOP/s
constexpr double kBytesPerUs = 0.9e6;  // 0.9 TB/s
constexpr double kActBytes = 2;        // fp16 activations

double elements(const sdk::Graph& g, const std::string& name) {
  const auto& t = g.tensor(name);
  return t.fully_known() ? static_cast<double>(t.elements()) : 0;
}

// Multiply-adds of the node's output: Conv and the matrix products are
// compute-bound; everything else moves its activations once each way.
double forward_us(const sdk::Graph& g, const sdk::Node& n) {
  if (n.outputs.empty() || n.inputs.empty()) return 0;
  const double out = elements(g, n.outputs[0]);
  if (n.op_type == "Conv" && n.inputs.size() > 1) {
    const auto& w = g.tensor(n.inputs[1]).shape;  // [cout, cin/group, kh, kw]
    double per_output = 1;
    for (size_t d = 1; d < w.size(); ++d) per_output *= static_cast<double>(std::max<int64_t>(w[d], 1));
    return 2 * out * per_output / kFlopsPerUs;
  }
  if ((n.op_type == "MatMul" || n.op_type == "Gemm") && n.inputs.size() > 1) {
    const auto& a = g.tensor(n.inputs[0]).shape;
    const bool trans_a = n.op_type == "Gemm" && n.attrs.value("transA", 0) != 0;
    const double k = a.empty() ? 1 : static_cast<double>(trans_a && a.size() >= 2 ? a[a.size() - 2] : a.back());
    return 2 * out * k / kFlopsPerUs;
  }
  double bytes = out;
  for (const auto& in : n.inputs)
    if (!in.empty() && !g.tensor(in).constant) bytes += elements(g, in);
  return bytes * kActBytes / kBytesPerUs;
}

}  // namespace

GradientProfile reference_profile(const std::filesystem::path& model, int batch) {
  const sdk::Graph graph = host::load_onnx(model);
  std::vector<double> backward;
  double forward = 0;
  for (const auto& node : graph.nodes) {
    const double us = forward_us(graph, node) * batch;
    forward += us;
    backward.push_back(kBackwardFactor * us);
  }
  return profile_from_model(trainable_tensors(graph), backward, forward,
                            model.stem().string() + " reference profile, batch " + std::to_string(batch));
}

}  // namespace aoe::gdat::test
