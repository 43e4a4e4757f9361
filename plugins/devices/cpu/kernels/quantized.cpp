#include "quantized.h"

#include "op_util.h"

namespace aoe::cpu {

QuantRange quantized_range(sdk::DType t, const std::string& who, const std::string& tensor) {
  if (t == sdk::DType::u8) return {0, 255};
  if (t == sdk::DType::i8) return {-128, 127};
  unsupported("the cpu device runs " + who + " on uint8 and int8: " + tensor + " is " + sdk::to_string(t));
}

namespace {

// What an input of a quantized op is.
enum class QuantInput { data, zero_point, scale, output_scale, bias };

ValueRange quantized_input(const sdk::OpTask& task, size_t index, const std::string& role, QuantInput kind) {
  const auto& t = task.inputs.at(index);
  const std::string who = task.op_type + " '" + task.name + "'";
  if (!t.fully_known()) invalid(who + ": input '" + role + "' has unknown dims");
  switch (kind) {
    case QuantInput::scale: require_dtype(task, index, false, Takes::f32); return {0.01f, 0.05f};
    case QuantInput::output_scale: require_dtype(task, index, false, Takes::f32); return {0.5f, 1.0f};
    case QuantInput::bias: require_dtype(task, index, false, Takes::integral); return {-1000.0f, 1000.0f};
    default: break;
  }
  const QuantRange q = quantized_range(t.dtype, who, "input '" + role + "' ('" + t.name + "')");
  if (kind == QuantInput::data) return {static_cast<float>(q.lo), static_cast<float>(q.hi)};
  const auto zero = static_cast<float>(std::round((q.lo + q.hi) / 8));  // one whole value, off the middle
  return {zero, zero};
}

}  // namespace

void find_quantized_inputs(const sdk::OpTask& task, const std::string& who, const std::vector<const char*>& names,
                           int* at, int64_t* count, std::vector<ValueRange>& ranges) {
  enum Role : size_t { kA, kAScale, kAZero, kB, kBScale, kBZero, kYScale, kYZero, kBias };
  std::fill(at, at + names.size(), -1);
  if (task.op_type.rfind("QLinear", 0) == 0) {
    require_inputs(task, kBias, names.size());
    for (size_t r = 0; r < task.inputs.size(); ++r) at[r] = static_cast<int>(r);
  } else {
    require_inputs(task, 2, 4);
    const std::vector<int> slot = tensor_slots(task, "input_slots", task.inputs.size(), 4);
    at[kA] = slot[0], at[kB] = slot[1], at[kAZero] = slot[2], at[kBZero] = slot[3];
    if (at[kA] < 0 || at[kB] < 0) invalid(who + " takes " + names[kA] + " and " + names[kB]);
  }
  ranges.resize(task.inputs.size());
  for (size_t r = 0; r < names.size(); ++r) {
    if (at[r] < 0) continue;
    const auto i = static_cast<size_t>(at[r]);
    const QuantInput kind = r == kA || r == kB           ? QuantInput::data
                            : r == kAScale || r == kBScale ? QuantInput::scale
                            : r == kYScale                 ? QuantInput::output_scale
                            : r == kBias                   ? QuantInput::bias
                                                           : QuantInput::zero_point;
    ranges[i] = quantized_input(task, i, names[r], kind);
    count[r] = elements(task.inputs[i].shape);
  }
}

}  // namespace aoe::cpu
