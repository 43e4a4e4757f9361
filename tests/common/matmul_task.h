// An f16 MatMul task [m, k] x [k, n] with constant weights, as the SDK and
// OPAT tests key and rank them.
#pragma once

#include <cstdint>

#include "aoe/sdk/op_task.h"

namespace aoe::test {

inline sdk::OpTask matmul(int64_t m, int64_t k, int64_t n) {
  sdk::OpTask t;
  t.name = "MatMul_0";
  t.op_type = "MatMul";
  t.inputs = {{"a", {m, k}, sdk::DType::f16}, {"b", {k, n}, sdk::DType::f16, "ND", true}};
  t.outputs = {{"y", {m, n}, sdk::DType::f16}};
  return t;
}

}  // namespace aoe::test
