// The op tasks the ascend tests run: small enough for the reference, with
// channels and sizes that are not multiples of 16, so every format pads.
#pragma once

#include <nlohmann/json.hpp>

namespace aoe::test {

// MatMul [64,128] x [128,32], then + bias [32], then Relu: OPAT's fused MLP layer.
inline nlohmann::json matmul_add_relu() {
  return nlohmann::json::parse(R"({
    "name": "fc/MatMul+fc/Add+fc/Relu", "op_type": "MatMul", "fused_ops": ["Add", "Relu"],
    "inputs": [{"name": "x", "shape": [64, 128], "dtype": "float32"},
               {"name": "w", "shape": [128, 32], "dtype": "float32", "constant": true},
               {"name": "b", "shape": [32], "dtype": "float32", "constant": true}],
    "outputs": [{"name": "y", "shape": [64, 32], "dtype": "float32"}]})");
}

// Conv 3x3, pad 1, 20 -> 24 channels on 8x8, with bias, then Relu.
inline nlohmann::json conv_relu() {
  return nlohmann::json::parse(R"({
    "name": "conv/Conv+conv/Relu", "op_type": "Conv", "fused_ops": ["Relu"],
    "inputs": [{"name": "x", "shape": [1, 20, 8, 8], "dtype": "float32"},
               {"name": "w", "shape": [24, 20, 3, 3], "dtype": "float32", "constant": true},
               {"name": "b", "shape": [24], "dtype": "float32", "constant": true}],
    "outputs": [{"name": "y", "shape": [1, 24, 8, 8], "dtype": "float32"}],
    "attrs": {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1], "strides": [1, 1]}})");
}

}  // namespace aoe::test
