// An Einsum that contracts two operands (each label once per operand, and
// every label the output leaves out shared by both) becomes the MatMul it
// is, as ONNX Runtime's Einsum kernel runs it: each operand transposed to
// [batch, free, summed] and reshaped to a (batched) matrix, their product
// reshaped to the output's dims and transposed to its order. A device then
// runs, fuses and tunes a GEMM rather than an Einsum's element loop; the
// transposes and reshapes of a constant operand fold away.
#pragma once

#include <cstdint>

namespace onnx {
class GraphProto;
}

namespace aoe::host {

// Rewrites every such Einsum whose inputs' dims are all known, in the forms
// of `opset`; returns how many.
int64_t einsum_as_matmul(onnx::GraphProto& graph, int64_t opset);

}  // namespace aoe::host
