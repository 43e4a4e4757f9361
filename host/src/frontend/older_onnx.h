// Models of opsets 1 to 6, as PyTorch 0.3 and 0.4, Caffe2 and the first
// converters wrote them (the ONNX model zoo still holds many): read as
// opset 7, as ONNX's version converter does it. Ops defined at 7 as they
// were stay; those opset 7 changed are rewritten where the opset-7 form
// computes the same: the legacy `broadcast`/`axis` of the binary ops (B
// aligned at an axis becomes B unsqueezed to broadcast there), PRelu's
// per-channel slope, BatchNormalization's and Dropout's `is_test`, Gemm's
// `broadcast`, `consumed_inputs` (the only change at 6 of Relu, Sigmoid, Clip,
// the unary and variadic ops), Cast-1's type name; AveragePool-1 is
// AveragePool-7 without count_include_pad. The rest is refused naming the op.
// The model is checked by ONNX's checker at its own opset before this reads it.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <filesystem>

namespace aoe::host {

// Rewrites a model whose default opset is 1..6 to opset 7. Returns the number
// of nodes rewritten (0 for any other opset); throws sdk::Error naming the
// file and the op for what cannot be read.
int64_t read_as_opset7(onnx::ModelProto& model, const std::filesystem::path& path);

}  // namespace aoe::host
