#include "mindspore_dtypes.h"

#include <map>
#include <set>

namespace aoe::sim {

std::optional<std::string> shifted_mindspore_label(const KernelProfile& profile, bool float_is_generic) {
  static const std::set<std::string> kTelltales = {"begin", "int", "uint", "int16"};
  for (const auto& k : profile.kernels)
    for (const auto* side : {&k.inputs, &k.outputs})
      for (const auto& t : *side)
        if (kTelltales.count(t.dtype_name) || (float_is_generic && t.dtype_name == "float")) return t.dtype_name;
  return std::nullopt;
}

void read_labels_one_type_on(KernelProfile& profile) {
  // MindSpore's TypeId order, from kNumberTypeBegin; the generic int, uint
  // and float a real label never lands on are left undefined.
  static const std::map<std::string, std::string> kNext = {
      {"begin", "bool"},     {"bool", "int"},       {"int", "int8"},       {"int8", "int16"},
      {"int16", "int32"},    {"int32", "int64"},    {"int64", "uint"},     {"uint", "uint8"},
      {"uint8", "uint16"},   {"uint16", "uint32"},  {"uint32", "uint64"},  {"uint64", "float"},
      {"float", "float16"},  {"float16", "float32"}, {"float32", "double"}};
  for (auto& k : profile.kernels)
    for (auto* side : {&k.inputs, &k.outputs})
      for (auto& t : *side) {
        const auto next = kNext.find(t.dtype_name);
        if (next == kNext.end()) continue;
        t.dtype_name = next->second;
        // A compact `float` is float32; the generic one is no tensor's type.
        t.dtype = next->second == "float" ? sdk::DType::undefined : profiled_dtype(next->second);
      }
}

}  // namespace aoe::sim
