#include "quantized.h"

#include "op_util.h"

namespace aoe::cpu {

QuantRange quantized_range(sdk::DType t, const std::string& who, const std::string& tensor) {
  if (t == sdk::DType::u8) return {0, 255};
  if (t == sdk::DType::i8) return {-128, 127};
  unsupported("the cpu device runs " + who + " on uint8 and int8: " + tensor + " is " + sdk::to_string(t));
}

void require_quantized(const sdk::OpTask& task, size_t index, const std::string& role) {
  const auto& t = task.inputs.at(index);
  if (!t.fully_known()) invalid(task.op_type + " '" + task.name + "': input '" + role + "' has unknown dims");
  (void)quantized_range(t.dtype, task.op_type + " '" + task.name + "'", "input '" + role + "' ('" + t.name + "')");
}

}  // namespace aoe::cpu
