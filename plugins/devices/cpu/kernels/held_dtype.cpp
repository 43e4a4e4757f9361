#include "held_dtype.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "op_util.h"

namespace aoe::cpu {

bool is_held(sdk::DType t) {
  return t == sdk::DType::f32 || computed_in_f32(t) || is_integral(t);
}

bool computed_in_f32(sdk::DType t) { return t == sdk::DType::f16 || t == sdk::DType::bf16 || t == sdk::DType::f64; }

bool is_integral(sdk::DType t) {
  switch (t) {
    case sdk::DType::i8:
    case sdk::DType::i16:
    case sdk::DType::i32:
    case sdk::DType::i64:
    case sdk::DType::u8:
    case sdk::DType::u16:
    case sdk::DType::u32:
    case sdk::DType::u64:
    case sdk::DType::boolean: return true;
    default: return false;
  }
}

bool is_unsigned(sdk::DType t) {
  return t == sdk::DType::u8 || t == sdk::DType::u16 || t == sdk::DType::u32 || t == sdk::DType::u64 ||
         t == sdk::DType::boolean;
}

namespace {

// An output's dtype may be left undefined (a task made by hand): the op's own.
bool taken(sdk::DType t, Takes takes, bool output) {
  if (output && t == sdk::DType::undefined) return takes != Takes::integral;
  switch (takes) {
    case Takes::f32: return t == sdk::DType::f32 || computed_in_f32(t);
    case Takes::held: return is_held(t);
    case Takes::integral: return is_integral(t);
  }
  return false;
}

const char* taken_names(Takes takes) {
  switch (takes) {
    case Takes::f32: return "float32 (and float64, float16 and bfloat16 as float32) only";
    case Takes::held: return "float32, integers and bool";
    case Takes::integral: return "integers and bool";
  }
  return "";
}

}  // namespace

void require_dtype(const sdk::OpTask& task, size_t index, bool output, Takes takes) {
  const auto& list = output ? task.outputs : task.inputs;
  if (index >= list.size()) return;
  const auto& t = list[index];
  if (!output && !t.fully_known()) invalid(task.op_type + " input " + std::to_string(index) + " has unknown dims");
  if (taken(t.dtype, takes, output)) return;
  unsupported("the cpu device runs " + task.op_type + " on " + taken_names(takes) + ": " + task.op_type + " '" +
              task.name + "' " + (output ? "output" : "input") + " '" + t.name + "' is " + sdk::to_string(t.dtype));
}

void require_dtypes(const sdk::OpTask& task, Takes takes, const std::vector<size_t>& skip) {
  for (size_t i = 0; i < task.inputs.size(); ++i) {
    if (std::find(skip.begin(), skip.end(), i) != skip.end()) {
      if (!task.inputs[i].fully_known()) invalid(task.op_type + " input " + std::to_string(i) + " has unknown dims");
      continue;
    }
    require_dtype(task, i, false, takes);
  }
  for (size_t i = 0; i < task.outputs.size(); ++i) require_dtype(task, i, true, takes);
}

void require_same_dtype(const sdk::OpTask& task, std::initializer_list<size_t> inputs) {
  if (task.outputs.empty() || task.outputs[0].dtype == sdk::DType::undefined) return;
  const sdk::DType want = task.outputs[0].dtype;
  for (const size_t i : inputs)
    if (i < task.inputs.size() && task.inputs[i].dtype != want)
      unsupported(task.op_type + " '" + task.name + "': input '" + task.inputs[i].name + "' is " +
                  sdk::to_string(task.inputs[i].dtype) + " but output '" + task.outputs[0].name + "' is " +
                  sdk::to_string(want));
}

double as_float16(double v) {
  if (!std::isfinite(v) || v == 0) return v;
  int e = 0;
  std::frexp(v, &e);  // |v| = f * 2^e, f in [0.5, 1)
  // 11 significant bits for normal values; a fixed step of 2^-24 below 2^-14.
  const double step = std::ldexp(1.0, std::max(e - 11, -24));
  const double r = std::nearbyint(v / step) * step;
  return std::abs(r) > 65504.0 ? std::copysign(INFINITY, v) : r;
}

double as_bfloat16(double v) {
  const auto f = static_cast<float>(v);
  if (std::isnan(f)) return v;
  uint32_t bits = 0;
  std::memcpy(&bits, &f, sizeof bits);
  bits &= 0xffff0000u;
  float kept = 0;
  std::memcpy(&kept, &bits, sizeof kept);
  return kept;
}

double as_integer(double v, sdk::DType t) {
  if (t == sdk::DType::boolean) return v != 0 ? 1 : 0;  // NaN too
  if (std::isnan(v)) return 0;
  v = std::trunc(v);
  const auto wrap = [&](double bits, bool is_signed) {
    const double span = std::ldexp(1.0, static_cast<int>(bits));
    double w = std::fmod(v, span);
    if (w < 0) w += span;
    if (is_signed && w >= span / 2) w -= span;
    return w;
  };
  switch (t) {
    case sdk::DType::i8: return wrap(8, true);
    case sdk::DType::u8: return wrap(8, false);
    case sdk::DType::i16: return wrap(16, true);
    case sdk::DType::u16: return wrap(16, false);
    case sdk::DType::i32: return wrap(32, true);
    case sdk::DType::u32: return wrap(32, false);
    case sdk::DType::u64: return v < 0 ? wrap(64, false) : v;
    default: return v;
  }
}

}  // namespace aoe::cpu
