// Models written by newer ONNX than the library aoe checks and infers with
// (ONNX 1.12: IR version 8, opsets up to 17). PyTorch's dynamo exporter,
// tf2onnx and Paddle2ONNX write IR 9 or 10 and opset 18 or later; such a
// model is read as IR 8 and opset 17, each node whose op changed since 17
// rewritten to the opset-17 form that computes the same, as ONNX's version
// converter does. A node no opset-17 form computes the same as (Resize with
// antialias, Pad in wrap mode, a bitwise op...) is refused by name.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <filesystem>

namespace aoe::host {

// The newest opset of the default domain read this way.
inline constexpr int64_t kNewestReadOpset = 21;

// Lowers the model's IR version to 8 where it is newer and, where its default
// opset is in 18..kNewestReadOpset, rewrites the nodes (subgraphs included)
// and sets the opset to 17. Returns the number of nodes rewritten; throws
// sdk::Error naming the file and the node for what cannot be read.
int64_t read_as_opset17(onnx::ModelProto& model, const std::filesystem::path& path);

}  // namespace aoe::host
