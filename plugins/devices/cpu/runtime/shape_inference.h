// Output shapes of a node from its inputs' shapes as the model runs, for the
// part of a model after an op whose output shape depends on values: ONNX's
// shape inference left those dims unknown, the executor knows them now.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "aoe/sdk/graph.h"
#include "shape.h"

namespace aoe::cpu {

// Per present output of `node`, its shape given its present inputs' shapes:
// what the graph declares where every dim is known, else worked out for
// the elementwise family, Where, Cast, Identity, Transpose, Squeeze,
// Unsqueeze, Flatten, the reductions, ArgMax, ArgMin, Gather, Concat,
// MatMul, Shape and Size. Nothing for another op.
// The ops infer_output_shapes() works shapes out for, as a sentence.
std::string shape_inference_ops();

std::optional<std::vector<Shape>> infer_output_shapes(const sdk::Graph& graph, const sdk::Node& node,
                                                      const std::vector<Shape>& inputs);

}  // namespace aoe::cpu
