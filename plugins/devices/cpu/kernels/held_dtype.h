// How the device holds each dtype: every tensor in float32 slots, integers
// and bools as the whole numbers they are (a bool as 0 or 1), exact up to
// 2^24 in magnitude, as the buffers, the arena and the host's inputs are
// float32; float64 rounded to float32 and float16 and bfloat16 widened to
// it, all computed in float32, as OpenVINO's CPU plugin runs such models (a
// Cast to float16 or bfloat16 keeps only that type's precision). The dtype travels in the task's tensors; an op reads it there
// to choose integer semantics (Div truncating, Mod the divisor's sign) or
// a bool result. The one place an op says which dtypes it takes.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "aoe/sdk/op_task.h"

namespace aoe::cpu {

// Dtypes the device holds: float32, float64, float16 and bfloat16 (as
// float32), the integers of 8 to 64 bits and bool.
bool is_held(sdk::DType t);
// float16, bfloat16 and float64: held and computed in float32.
bool computed_in_f32(sdk::DType t);
// The integers and bool.
bool is_integral(sdk::DType t);
bool is_unsigned(sdk::DType t);
// The largest magnitude an integer held as float32 keeps exactly.
constexpr double kExactIntegerLimit = 16777216.0;  // 2^24

// What an op takes of a tensor.
enum class Takes {
  f32,       // float32, and float64, float16 and bfloat16 computed in it: a float kernel
  held,      // any held dtype: the op moves or compares values
  integral,  // integers and bool (indices, conditions, shapes)
};

// Unsupported, naming the op, the tensor and its dtype, unless every input
// (but those in `skip`: values the op takes as attributes) and every
// output is taken by `takes`. Unknown dims are invalid.
void require_dtypes(const sdk::OpTask& task, Takes takes, const std::vector<size_t>& skip = {});
// The same for one tensor: input `index` of the task, or output `index` when `output`.
void require_dtype(const sdk::OpTask& task, size_t index, bool output, Takes takes);
// Unsupported unless the inputs listed and the first output share one dtype.
void require_same_dtype(const sdk::OpTask& task, std::initializer_list<size_t> inputs);

// `v` rounded to the nearest float16 (ties to even; infinity past its range).
double as_float16(double v);
// `v` as a bfloat16 keeps it: its float32's low 16 bits dropped, as the
// Cast of the opsets the frontend reads (up to 17) does in ONNX's reference
// and test data (round to nearest even came with opset 19); NaN stays NaN.
double as_bfloat16(double v);
// `v` as an integer of dtype `t` would hold it: wrapped to its width,
// truncated towards zero from a float.
double as_integer(double v, sdk::DType t);

}  // namespace aoe::cpu
