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
#include "cpu_op.h"

namespace aoe::cpu {

// The values an 8-bit quantized dtype holds.
struct QuantRange {
  double lo = 0, hi = 255;
};
// uint8 or int8; unsupported otherwise, naming op `who` and tensor `tensor`.
QuantRange quantized_range(sdk::DType t, const std::string& who, const std::string& tensor);

// What an input of a quantized op is.
enum class QuantInput { data, zero_point, scale, output_scale, bias };
// Input `index` checked to be of its kind's dtype (data and zero points
// uint8 or int8, scales float, a bias integer; unsupported otherwise, naming
// the op and the input `role`), and the values a tuner's random inputs
// draw it from.
ValueRange quantized_input(const sdk::OpTask& task, size_t index, const std::string& role, QuantInput kind);

// An integer held as a float (held_dtype.h), as the integer it is: a value
// drawn off the integers (a tuner's random input) to the nearest.
inline int64_t held_int(float v) { return static_cast<int64_t>(std::lrint(v)); }

// saturate(round(v) + zero), round half to even.
inline float requantized(double v, double zero, const QuantRange& r) {
  return static_cast<float>(std::clamp(std::nearbyint(v) + zero, r.lo, r.hi));
}

}  // namespace aoe::cpu
