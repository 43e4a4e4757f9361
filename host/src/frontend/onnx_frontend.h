// The ONNX frontend: reads a model file into the SDK graph IR, with every shape it can infer.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "aoe/sdk/graph.h"
#include "graph_normaliser.h"
#include "model_weights.h"

namespace onnx {
class ModelProto;
}

namespace aoe::host {

// Input name -> the fixed dims it is tuned for, as given by --input_shape.
using InputShapes = std::map<std::string, std::vector<int64_t>>;

// Parses AOE's --input_shape text: "x:1,3,640,640;y:1,10". Every dim must be >= 1.
// Empty text means no overrides. The name ends at the last ':', so TensorFlow-style
// names such as "input:0:1,224" work. Throws sdk::Error(invalid_argument) naming the
// bad part and showing the expected form.
InputShapes parse_input_shape(const std::string& text);

// Reads an ONNX model (default-domain opset 7..17), fixes its input shapes from
// input_shapes, infers the shape of every value, normalises the graph
// (graph_normaliser.h: logged, and told in `normalised`) and converts it to the graph IR.
// Weights kept as external data are never opened: only their dims are needed.
// Initializers, Constant nodes' outputs and folded values are tensors with constant = true.
// A value whose rank stays unknown has shape {-1}, so it is never taken for a scalar.
// Throws sdk::Error naming the file and what to do when the model cannot be used.
// With `weights`, the float32 initializers' values are read into it too (for
// running the model), external data included.
sdk::Graph load_onnx(const std::filesystem::path& model, const InputShapes& input_shapes = {},
                     ModelWeights* weights = nullptr, Normalisation* normalised = nullptr);

// The same for a serialized model handed over in memory; `name` stands for
// the file in messages. Throws sdk::Error(invalid_argument) when the bytes are
// no ONNX model or over protobuf's 2 GB.
sdk::Graph load_onnx_bytes(std::string_view bytes, const std::filesystem::path& name,
                           const InputShapes& input_shapes = {}, ModelWeights* weights = nullptr, Normalisation* normalised = nullptr);

// The same for a model already in memory that another frontend built; `path`
// is the file it came from, for messages and external data. Moves from `model`
// (with `weights`, its float initializers' values move there).
sdk::Graph load_onnx_model(onnx::ModelProto& model, const std::filesystem::path& path,
                           const InputShapes& input_shapes = {}, ModelWeights* weights = nullptr, Normalisation* normalised = nullptr);

}  // namespace aoe::host
