// Output shapes of a node from its inputs' shapes as the model runs, for the
// part of a model after an op whose output shape depends on values: ONNX's
// shape inference left those dims unknown, the executor knows them now.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "aoe/sdk/graph.h"
#include "shape.h"

namespace aoe::cpu {

// Per present output of `node`, its shape given its present inputs' shapes:
// what the graph declares where every dim is known, else worked out for
// the elementwise family, Where, Cast, Identity, Transpose, Squeeze,
// Unsqueeze, Flatten, the reductions, ArgMax, ArgMin, Gather, GatherND,
// Concat, Split, MatMul, Shape and Size. Nothing for another op.
// The ops infer_output_shapes() works shapes out for, as a sentence.
std::string shape_inference_ops();

// The values of a node's integer inputs the run has computed, by input slot.
using SlotValues = std::map<size_t, std::vector<int64_t>>;

// The most values a tensor whose shape the run computes may hold; a shape
// past it (or with a negative dim) is refused, naming the node.
inline constexpr int64_t kMaxRunTimeValues = int64_t{1} << 30;

// With `values`, also the ops whose output shape is in their inputs' values:
// TopK (K), Reshape, Expand, Tile, Slice, ConstantOfShape, Range, and
// GatherND (indices' shape), once their values are attributes
// (with_value_attributes).
std::optional<std::vector<Shape>> infer_output_shapes(const sdk::Graph& graph, const sdk::Node& node,
                                                      const std::vector<Shape>& inputs, const SlotValues& values = {});

// The input slots of `node` whose values the run computes (not constants of
// the graph) and which decide its output's shape or which its kernel takes
// as an attribute: Slice's bounds, TopK's K, Reshape's, Expand's and
// ConstantOfShape's shape, Tile's repeats, Range's bounds, the indices of
// GatherND and GatherElements, the axes of Squeeze, Unsqueeze and the
// reductions, Pad's widths. Empty for any other node.
std::vector<size_t> run_time_value_slots(const sdk::Graph& graph, const sdk::Node& node);
// Those slots whether the run computes them or they are constants (lent with the weights).
std::vector<size_t> value_input_slots(const sdk::Node& node);
// Whether ops of this type have such slots at all.
bool has_value_inputs(const std::string& op_type);

// `node` with those values as the attributes its kernel reads (the names the
// frontend gives the same values when they are constants).
sdk::Node with_value_attributes(sdk::Node node, const SlotValues& values);

}  // namespace aoe::cpu
