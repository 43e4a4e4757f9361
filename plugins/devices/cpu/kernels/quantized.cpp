#include "quantized.h"

#include "op_util.h"

namespace aoe::cpu {

QuantRange quantized_range(sdk::DType t, const std::string& who, const std::string& tensor) {
  if (t == sdk::DType::u8) return {0, 255};
  if (t == sdk::DType::i8) return {-128, 127};
  unsupported("the cpu device runs " + who + " on uint8 and int8: " + tensor + " is " + sdk::to_string(t));
}

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

}  // namespace aoe::cpu
