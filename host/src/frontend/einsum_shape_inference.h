// Einsum's output shape from its equation and its inputs' dims, by the rule
// the cpu device sizes the op with (sdk/einsum_equation.h). libonnx 1.12's
// own inference gives the output's rank alone, so a model whose exporter
// left the shape unknown (PyTorch's for "bij,bkj->bik") could not be
// planned; guarded_schemas puts this one in its place. A dim no input
// knows is left unknown.
#pragma once

#include <onnx/defs/shape_inference.h>

#include <filesystem>

namespace onnx {
class GraphProto;
}

namespace aoe::host {

void infer_einsum_shape(onnx::InferenceContext& ctx);

// Throws, naming the node, its equation and what is wrong, for an Einsum whose
// equation does not fit its operands' ranks. Inference leaves such a node's
// output unknown and goes on; a device would only find an output of unknown dims.
void check_einsum_equations(const onnx::GraphProto& graph, const std::filesystem::path& path);

}  // namespace aoe::host
