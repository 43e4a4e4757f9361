#include "model_run_parts.h"

#include <algorithm>

#include "aoe/sdk/error.h"
#include "op_util.h"
#include "quantizer_anchors.h"

namespace aoe::cpu {

using nlohmann::json;

GivenViews given_tensors(const SubgraphOp& op, const sdk::GraphRun& run, const std::vector<sdk::TensorView>& views,
                         std::map<std::string, std::vector<float>>& drawn) {
  GivenViews given;
  const auto take = [&](const sdk::TensorView& view, const std::string& what) {
    const auto want = static_cast<size_t>(run.graph.tensor(view.name).elements());
    if (view.count != want || (!view.data && want > 0))
      invalid(what + " '" + view.name + "' has " + std::to_string(view.count) + " values, the model takes " +
              std::to_string(want));
    given[view.name] = std::span<const float>(view.data, want);
  };
  for (const auto& name : run.graph.inputs) {
    const auto view = std::find_if(views.begin(), views.end(), [&](const sdk::TensorView& v) { return v.name == name; });
    if (view == views.end()) invalid("no data for the model's input '" + name + "'");
    take(*view, "input");
  }
  for (const auto& view : views) {
    if (std::find(run.graph.inputs.begin(), run.graph.inputs.end(), view.name) != run.graph.inputs.end()) continue;
    if (!run.graph.tensors.count(view.name) || !run.graph.tensor(view.name).constant)
      invalid("'" + view.name + "' is neither an input nor a weight of the model");
    // A weight no kernel reads as data (a shape, folded at load) needs no values.
    if (!op.given().count(view.name)) continue;
    take(view, "weight");
  }
  drawn = random_given(op, run.seed, given);
  for (const auto& [name, values] : drawn) given.emplace(name, std::span<const float>(values));
  return given;
}

void require_outputs(const sdk::Graph& graph, const std::vector<sdk::TensorView>& outputs) {
  if (outputs.size() != graph.outputs.size())
    invalid(std::to_string(outputs.size()) + " output buffers for a model of " + std::to_string(graph.outputs.size()) +
            " outputs");
  for (size_t i = 0; i < outputs.size(); ++i) {
    const auto& t = graph.tensor(graph.outputs[i]);
    if (!t.fully_known())
      invalid("output '" + graph.outputs[i] + "' has dims " + json(t.shape).dump() + ", known only as the model runs");
    const auto want = static_cast<size_t>(t.elements());
    if (outputs[i].count != want || (!outputs[i].data && want > 0))  // an empty output may have no buffer
      invalid("output '" + graph.outputs[i] + "' needs " + std::to_string(want) + " values, its buffer holds " +
              std::to_string(outputs[i].count));
  }
}

json latency_report(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  auto at = [&](double q) { return ms[std::min(ms.size() - 1, static_cast<size_t>(q * static_cast<double>(ms.size() - 1) + 0.5))]; };
  double sum = 0;
  for (const double t : ms) sum += t;
  return {{"min", ms.front()},
          {"median", at(0.5)},
          {"p90", at(0.9)},
          {"mean", sum / static_cast<double>(ms.size())},
          {"runs", ms.size()}};
}

json check_report(const SubgraphOp& op, const GivenViews& given, const std::vector<sdk::TensorView>& outputs,
                  const Tolerance& tolerance, std::map<std::string, std::vector<float>> quantized) {
  std::map<std::string, std::vector<float>> values;
  for (const auto& [name, v] : given) values[name].assign(v.begin(), v.end());
  QuantizerAnchors anchors;
  anchors.run = std::move(quantized);
  const auto written = quantizer_outputs(op.graph());
  for (size_t i = 0; i < outputs.size(); ++i) {
    const auto& name = op.graph().outputs[i];
    if (std::find(written.begin(), written.end(), name) != written.end())
      anchors.run[name].assign(outputs[i].data, outputs[i].data + outputs[i].count);
  }
  op.reference(values, [&](const sdk::Node& node, std::map<std::string, std::vector<float>>& v) { anchors.anchor(node, v); });
  json per_output = json::array();
  bool all = true;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const auto& name = op.graph().outputs[i];
    const std::string why =
        compare(outputs[i].data, values.at(name).data(), static_cast<int64_t>(outputs[i].count), tolerance);
    all = all && why.empty();
    json o = {{"name", name}, {"match", why.empty()}};
    if (!why.empty()) o["mismatch"] = why;
    per_output.push_back(std::move(o));
  }
  json report = {{"match", all}, {"atol", tolerance.atol}, {"rtol", tolerance.rtol}, {"outputs", per_output}};
  if (!anchors.run.empty()) report["quantizers"] = anchors.to_json();
  return report;
}

}  // namespace aoe::cpu
