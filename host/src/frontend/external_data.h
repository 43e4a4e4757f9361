// An initializer's bytes kept in a file beside the model (ONNX's external
// data), read as the model is loaded or run.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace onnx {
class GraphProto;
class TensorProto;
}  // namespace onnx

namespace aoe::host {

// External tensors of at most this many bytes are read into the model as it
// is loaded: shapes, scales and pads, which folding and shape inference need
// the values of (ONNX's own writer keeps tensors under 1 KiB in the file;
// other writers move every one out). So are integer and bool ones of up to
// kConstantElements elements, as folding reads them: indices and masks,
// which the devices take as the node's constants.
inline constexpr int64_t kReadInBytes = int64_t{64} << 10;

// The `bytes` bytes of external tensor `t` from its file beside `model`.
// Call after check_initializers, which bounds its offset and length. A file
// that is absent or short is an sdk::Error naming the model, the tensor and
// the file.
std::string read_external_bytes(const onnx::TensorProto& t, const std::filesystem::path& model, int64_t bytes);

// Every external initializer of `graph` of at most kReadInBytes, or integer
// or bool of at most kConstantElements elements, whose file is there, its
// bytes moved into its raw data. Returns how many.
int64_t read_external_constants(onnx::GraphProto& graph, const std::filesystem::path& model);

}  // namespace aoe::host
