// What the quantized ops share: the 8-bit integer ranges they saturate to,
// an integer held as a float read back, and the requantizing of an integer
// sum (QLinearMatMul, QLinearConv): scaled, rounded half to even, shifted
// by the output's zero point and saturated.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "aoe/sdk/op_task.h"
#include "cpu_op.h"

namespace aoe::cpu {

// The values an 8-bit quantized dtype holds.
struct QuantRange {
  double lo = 0, hi = 255;
};
// uint8 or int8; unsupported otherwise, naming op `who` and tensor `tensor`.
QuantRange quantized_range(sdk::DType t, const std::string& who, const std::string& tensor);

// The inputs of an integer MatMul or Conv found in the task, by role in the
// QLinear ops' order: `names` lists operand A's data, scale and zero point,
// operand B's the same, the output's scale and zero point, then the bias
// where the op takes one. A QLinear op lists them in that order (the bias
// optional); MatMulInteger and ConvInteger list A, B and their zero points,
// placed through "input_slots". Each is checked by its kind (data and zero
// points uint8 or int8, scales float, a bias integer), naming the op and the
// role. `at` gets each role's input (-1 where absent), `count` its elements,
// `ranges` (per input) the values a tuner's random inputs draw it from.
void find_quantized_inputs(const sdk::OpTask& task, const std::string& who, const std::vector<const char*>& names,
                           int* at, int64_t* count, std::vector<ValueRange>& ranges);

// An integer held as a float (held_dtype.h), as the integer it is: a value
// drawn off the integers (a tuner's random input) to the nearest.
inline int64_t held_int(float v) { return static_cast<int64_t>(std::lrint(v)); }

// saturate(round(v) + zero), round half to even.
inline float requantized(double v, double zero, const QuantRange& r) {
  return static_cast<float>(std::clamp(std::nearbyint(v) + zero, r.lo, r.hi));
}

}  // namespace aoe::cpu
