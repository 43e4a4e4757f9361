// Small ONNX models the run tests write: one kernel or two, fast to run and check.
#pragma once

#include <filesystem>

namespace aoe::test {

// x[1,3,8,8] -> Conv(W[4,3,3,3], B[4], pads 1) -> Relu -> Add(S[1,4,8,8]) -> y[1,4,8,8].
void write_conv_model(const std::filesystem::path& file);
// a[1,3,8,8] -> Relu -> x: its output, written with --outputs, is the conv model's input.
void write_relu_model(const std::filesystem::path& file);
// a[1,2] -> Relu -> x[1,2]: an array named as the conv model's input, of another shape.
void write_small_relu_model(const std::filesystem::path& file);
// x[1,8] -> Mul(Z) -> Add(W) -> y[1,8], Z zeros and W = 1..8: y is W, whatever x.
// With `external`, W is kept in "<file stem>.weights" beside the model.
void write_weights_model(const std::filesystem::path& file, bool external);
// x[4,8] -> MatMul(W[8,6]) -> Add(B[6]) -> Relu -> y[4,6]: one GEMM with its epilogue.
void write_matmul_model(const std::filesystem::path& file);
// x[1,4] -> Hardmax -> y: an op the cpu device has no kernel for.
void write_hardmax_model(const std::filesystem::path& file);

}  // namespace aoe::test
