// An Einsum of one operand, each label once in it (no diagonal), is a sum
// over the labels its output leaves out and a transpose to the output's
// order: a ReduceSum (keepdims 0) and a Transpose, each where needed, as
// ONNX Runtime's Einsum kernel reduces and permutes. A device then runs,
// times and tunes ops it has rather than an Einsum's element loop.
#pragma once

#include <cstdint>

namespace onnx {
class GraphProto;
}

namespace aoe::host {

// Rewrites every such Einsum whose input's dims are known, in the forms of
// `opset`; returns how many.
int64_t einsum_of_one_operand(onnx::GraphProto& graph, int64_t opset);

}  // namespace aoe::host
