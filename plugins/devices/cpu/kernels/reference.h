// Helpers of the reference implementations: numpy broadcasting by
// multi-index and the fused chain in double precision. Deliberately naive.
#pragma once

#include <cstdint>
#include <vector>

#include "chain.h"
#include "shape.h"

namespace aoe::cpu {

// The element of `data` (of `shape`) that broadcasting maps to `index` of `out`.
double at_broadcast(const float* data, const Shape& shape, const Shape& out, const std::vector<int64_t>& index);

// Advances a row-major multi-index over `shape`; false after the last.
bool next_index(std::vector<int64_t>& index, const Shape& shape);

// fn(index, flat) for every element of `shape` in row-major order: its
// multi-index and its offset. Nothing for an empty shape.
template <class Fn>
void for_each_index(const Shape& shape, Fn&& fn) {
  if (elements(shape) == 0) return;
  std::vector<int64_t> index(shape.size(), 0);
  int64_t flat = 0;
  do fn(static_cast<const std::vector<int64_t>&>(index), flat++);
  while (next_index(index, shape));
}

struct RefOperand {
  const float* data = nullptr;
  Shape shape;
};

// values (of shape `out`) through `steps`, whose binary ops read `operands`.
void reference_chain(const std::vector<ChainStep>& steps, const std::vector<RefOperand>& operands, const Shape& out,
                     std::vector<double>& values);

void store(const std::vector<double>& values, float* out);

}  // namespace aoe::cpu
