// Inputs whose values decide what an op computes (Slice's bounds, Pad's
// widths and fill, Clip's bounds, Gather's indices, Resize's scales,
// ReduceSum's axes), carried into the node as attributes
// when the model holds them as constants, so an op task says what it computes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "aoe/sdk/graph.h"

namespace onnx {
class GraphProto;
}

namespace aoe::host {

// For each node of `graph` (converted from `proto`, node for node) whose
// value inputs are initializers (normalise_graph has made every constant one):
//   Slice (opset 10+): inputs 1..4 -> "starts", "ends", "axes", "steps";
//   Pad (opset 11+): input 1 -> "pads", input 2 -> "value";
//   Clip (opset 11+): inputs 1, 2 -> "min", "max" (none for a min of -inf or
//     a max of +inf: no bound, as JSON has no infinity to carry);
//   Gather: input 1 -> "indices" (flat, row-major; the input keeps its shape);
//   Resize: scales (input 2, opset 10's input 1) -> "scales";
//   ReduceSum (opset 13+): input 1 -> "axes";
//   and the integer inputs of the ops below (integer_value_attribute).
// These are the names the older opsets' attributes have, so a device reads
// both forms alike. An attribute the node already has is kept; a value not
// known before the model runs adds nothing. Returns how many nodes gained one.
int64_t add_value_attributes(const onnx::GraphProto& proto, int64_t opset, sdk::Graph& graph);

// The attribute an integer or bool input's values go to (flat, row-major;
// the input keeps its shape), else nullptr: the "indices" of
// GatherElements, ScatterElements (Scatter), GatherND, ScatterND, OneHot and MaxUnpool, the
// losses' "target", Where's and Compress's "condition", Tile's "repeats",
// Expand's "shape", the "sequence_lens" of ReverseSequence, RNN, GRU and
// LSTM, RoiAlign's "batch_indices", ArrayFeatureExtractor's "indices", Dropout's "training_mode". A recurrent
// node, MatMulInteger, ConvInteger and STFT also gain "input_slots" and
// "output_slots": the
// positions of its inputs and outputs present, since a task lists only those. A device, whose buffers hold floats,
// reads them there.
const char* integer_value_attribute(const std::string& op_type, size_t input);

}  // namespace aoe::host
