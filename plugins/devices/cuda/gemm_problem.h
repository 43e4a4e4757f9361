// What a MatMul or Gemm task computes, as the cuda device's GEMM kernel
// takes it: C = act(alpha * op(A) op(B) + beta * bias) over a batch.
#pragma once

#include <cstdint>
#include <string>

#include "aoe/sdk/op_task.h"

namespace aoe::cuda {

// The activation fused after the product. Gelu comes in both of ONNX's
// forms: approximate="none" (erf, the default, and what BERT's recognised
// pattern gives) and approximate="tanh".
enum class GemmActivation { none = 0, relu = 1, gelu_erf = 2, gelu_tanh = 3 };

const char* to_string(GemmActivation activation);

// The products on tensor cores a user allows for an fp32 model: TF32
// (inputs rounded to 10 mantissa bits, as PyTorch's allow_tf32 and cuBLAS's
// TF32 mode do) and fp16 (the same mantissa, fp16's range, twice TF32's
// rate); both accumulate in fp32.
struct ReducedPrecision {
  bool tf32 = false, fp16 = false;
};

// `batch` products of an m x k and a k x n matrix, all row-major and dense.
// A is stored m x k (k x m when trans_a), B k x n (n x k when trans_b), C m x n.
struct GemmProblem {
  std::string op;  // "MatMul 'name'": what messages name
  int64_t batch = 1, m = 0, n = 0, k = 0;
  bool trans_a = false, trans_b = false;
  // Elements from one batch's matrix to the next; 0 where every batch shares it.
  int64_t a_batch_stride = 0, b_batch_stride = 0;
  float alpha = 1, beta = 1;
  // bias[b * bias_batch_stride + i * bias_row_stride + j * bias_col_stride]
  // is added (times beta) to C[b][i][j]: a stride is 0 along a dimension the
  // bias is broadcast over, so a per-column vector has strides (0, 0, 1).
  bool has_bias = false;
  int64_t bias_batch_stride = 0, bias_row_stride = 0, bias_col_stride = 0;
  // The task input the bias is: Gemm's C or the fused Add's operand; -1 without one.
  int bias_input = -1;
  // A second addend, a residual (BERT's MatMul -> Add bias -> Add residual),
  // added as it is (not times beta), with its own strides, after the bias.
  bool has_residual = false;
  int64_t residual_batch_stride = 0, residual_row_stride = 0, residual_col_stride = 0;
  int residual_input = -1;
  GemmActivation activation = GemmActivation::none;
  // The tensor-core products the space offers besides fp32 (the device
  // options allow_tf32, allow_fp16).
  ReducedPrecision allowed;

  int64_t lda() const { return trans_a ? m : k; }
  int64_t ldb() const { return trans_b ? k : n; }
  double flops() const { return 2.0 * static_cast<double>(batch) * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k); }
};

// Reads MatMul (2-D, 1-D operands and batches broadcast as ONNX allows) and
// Gemm (transA, transB, alpha, beta, C), each with the epilogue OPAT fuses
// after it: up to two Adds (a bias, or Gemm's C, then a residual) then at
// most one of Relu, Gelu.
// Batches of A that share B are folded into m. Throws sdk::Error
// (unsupported) naming the op and why for what the kernel does not take:
// other dtypes than float32, unknown dims, other fused ops, batch dims
// broadcast in part; (invalid_argument) for a malformed task.
GemmProblem gemm_problem(const sdk::OpTask& task);

}  // namespace aoe::cuda
