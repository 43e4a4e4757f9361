// Op tasks the simulator tests build: MatMul and Gemm of given shapes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "aoe/sdk/graph.h"
#include "aoe/sdk/op_task.h"

namespace aoe::sim::test {

inline sdk::TensorDesc tensor(std::vector<int64_t> shape, sdk::DType dtype = sdk::DType::f16, bool constant = false) {
  sdk::TensorDesc t;
  t.shape = std::move(shape);
  t.dtype = dtype;
  t.constant = constant;
  return t;
}

inline sdk::OpTask matmul(std::vector<int64_t> a, std::vector<int64_t> b, sdk::DType dtype = sdk::DType::f16) {
  sdk::OpTask task;
  task.name = "mm";
  task.op_type = "MatMul";
  task.inputs = {tensor(std::move(a), dtype), tensor(std::move(b), dtype)};
  return task;
}

inline sdk::OpTask square(int64_t m, int64_t k, int64_t n, sdk::DType dtype = sdk::DType::f16) {
  return matmul({m, k}, {k, n}, dtype);
}

}  // namespace aoe::sim::test
