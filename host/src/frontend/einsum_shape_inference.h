// Einsum's output shape from its equation and its inputs' dims, by the rule
// the cpu device sizes the op with (sdk/einsum_equation.h). libonnx 1.12's
// own inference gives the output's rank alone, so a model whose exporter
// left the shape unknown (PyTorch's for "bij,bkj->bik") could not be
// planned; guarded_schemas puts this one in its place. A dim no input
// knows is left unknown.
#pragma once

#include <onnx/defs/shape_inference.h>

namespace aoe::host {

void infer_einsum_shape(onnx::InferenceContext& ctx);

}  // namespace aoe::host
