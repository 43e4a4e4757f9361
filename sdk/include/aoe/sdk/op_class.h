// SPDX-License-Identifier: Apache-2.0
// AOE's two classes of operator task: "cube" (the matrix unit's work:
// convolutions, matrix products, attention, the recurrent cells whose steps
// are matrix products) and "vector" (everything else),
// which AOE tunes with different searchers (GA and RL by default in Auto Tune).
#pragma once

#include <algorithm>
#include <array>
#include <string>

namespace aoe::sdk {

inline const char* op_class(const std::string& op_type) {
  static constexpr std::array<const char*, 15> cube = {
      "Conv",     "ConvTranspose", "ConvInteger",   "QLinearConv", "MatMul",   "MatMulInteger",
      "QLinearMatMul", "Gemm",     "BatchMatMul",   "Einsum",      "Attention", "MultiHeadAttention",
      "LSTM",     "GRU",           "RNN"};
  return std::any_of(cube.begin(), cube.end(), [&](const char* t) { return op_type == t; }) ? "cube" : "vector";
}

}  // namespace aoe::sdk
