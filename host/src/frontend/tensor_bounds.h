// What a model file may make the host or a device allocate: tensors whose
// sizes fit, and weights whose data is where, and as long as, the model says.
#pragma once

#include <cstdint>
#include <filesystem>

#include "aoe/sdk/graph.h"

namespace onnx {
class GraphProto;
class TensorProto;
}  // namespace onnx

namespace aoe::host {

// The largest tensor a model may declare: beyond the memory of any device
// aoe tunes on, so only a wrong shape or a wrong --input_shape reaches it.
inline constexpr int64_t kMaxTensorBytes = int64_t{1} << 40;
// The most elements a shape from a model file may hold, for the frontends
// that multiply dims before any dtype is known: no real network has a
// tensor of more; past it a file is hostile or broken.
inline constexpr int64_t kMaxTensorElements = int64_t{1} << 40;

// An sdk::Error(invalid_argument): "ONNX model '<model>': initializer '<name>' <why>".
[[noreturn]] void initializer_error(const onnx::TensorProto& t, const std::filesystem::path& model, const std::string& why);
// Bytes of one element of an ONNX data type as raw or external data hold
// it; 0 for strings and unknown types.
int64_t stored_element_bytes(int32_t data_type);
// Each initializer before anything reads it: dims >= 0 whose size fits in
// kMaxTensorBytes, inline data as long as its dims say, external data in a
// file inside the model's folder and, when that file is there (only dims are
// needed, so it may be left out), its offset and length within it.
// Throws sdk::Error(invalid_argument) naming the model, the tensor and what to do.
void check_initializers(const onnx::GraphProto& graph, const std::filesystem::path& model);

// Every tensor of the inferred graph within kMaxTensorBytes. Throws
// sdk::Error(invalid_argument) naming the model, the tensor and the node
// that makes or reads it.
void check_tensor_sizes(const sdk::Graph& graph, const std::filesystem::path& model);

}  // namespace aoe::host
