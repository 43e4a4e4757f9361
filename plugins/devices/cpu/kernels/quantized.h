// What the quantized ops share: the 8-bit integer ranges they saturate to,
// an integer held as a float read back, and the requantizing of an integer
// sum (QLinearMatMul, QLinearConv): scaled, rounded half to even, shifted
// by the output's zero point and saturated.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "aoe/sdk/op_task.h"

namespace aoe::cpu {

// The values an 8-bit quantized dtype holds.
struct QuantRange {
  double lo = 0, hi = 255;
};
// uint8 or int8; unsupported otherwise, naming op `who` and tensor `tensor`.
QuantRange quantized_range(sdk::DType t, const std::string& who, const std::string& tensor);
// Unsupported unless input `index` of the task is uint8 or int8 (the role
// `role` names it in the message).
void require_quantized(const sdk::OpTask& task, size_t index, const std::string& role);

// An integer held as a float (held_dtype.h), as the integer it is: a value
// drawn off the integers (a tuner's random input) to the nearest.
inline int64_t held_int(float v) { return static_cast<int64_t>(std::lrint(v)); }

// saturate(round(v) + zero), round half to even.
inline float requantized(double v, double zero, const QuantRange& r) {
  return static_cast<float>(std::clamp(std::nearbyint(v) + zero, r.lo, r.hi));
}

}  // namespace aoe::cpu
