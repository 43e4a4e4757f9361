// What a device's whole-model run shares with the cpu's: the tensors lent
// checked and the weights not lent drawn, the output buffers checked, the
// latency summary, and the outputs checked against the nodes'
// double-precision references.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

#include "aoe/sdk/graph_run.h"
#include "evaluate.h"
#include "subgraph_op.h"
#include "subgraph_run.h"

namespace aoe::cpu {

// The graph's given tensors, as views of what the caller lends: its inputs,
// then the weights it hands over by name (the model's own values), used in
// place; the weights it does not are drawn from the seed into `drawn`.
// Throws sdk::Error(invalid_argument) naming a missing or mis-sized tensor.
GivenViews given_tensors(const SubgraphOp& op, const sdk::GraphRun& run, const std::vector<sdk::TensorView>& views,
                         std::map<std::string, std::vector<float>>& drawn);

// Throws sdk::Error(invalid_argument) unless there is one buffer per
// output, each of the output's size.
void require_outputs(const sdk::Graph& graph, const std::vector<sdk::TensorView>& outputs);

// {min, median, p90, mean, runs} of the runs' times.
nlohmann::json latency_report(std::vector<double> ms);

// Each output against the subgraph's references on `given`: {match, atol,
// rtol, outputs: [...]}. `quantized` holds what the run's quantizers wrote
// that is no graph output (quantizer_anchors.h); the reference takes it, and
// the outputs' own, where close, and the report says so ("quantizers").
nlohmann::json check_report(const SubgraphOp& op, const GivenViews& given, const std::vector<sdk::TensorView>& outputs,
                            const Tolerance& tolerance,
                            std::map<std::string, std::vector<float>> quantized = {});

}  // namespace aoe::cpu
