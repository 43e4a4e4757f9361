// Ops that exporters spell out as subgraphs, recognised and written back as
// one node, as an inference compiler's pattern fusion does: PyTorch before
// opset 17 exports LayerNorm as ReduceMean/Sub/Pow/ReduceMean/Add/Sqrt/Div
// (then Mul, Add), GELU as x * 0.5 * (1 + Erf(x / sqrt 2)), and SiLU as
// x * Sigmoid(x) (written back as Swish, ONNX's op of opset 24, alpha 1).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "aoe/sdk/graph.h"

namespace aoe::graph {

struct RecognisedGraph {
  aoe::sdk::Graph graph;  // each pattern one node: LayerNormalization, Gelu or Swish
  // The nodes of the model each new node stands for, by the new node's name.
  std::map<std::string, std::vector<std::string>> members;
};

// `swish` false leaves x * Sigmoid(x) as it is (a training step derives their gradients).
RecognisedGraph recognise_patterns(const aoe::sdk::Graph& graph, bool swish = true);

}  // namespace aoe::graph
