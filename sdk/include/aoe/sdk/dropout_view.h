// Whether a Dropout passes its input through, one rule for every mode and
// device: at inference it is a view (no kernel); one that gives its mask,
// or whose training_mode is a run-time input or a constant true one, is a
// kernel that may drop elements.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>

namespace aoe::sdk {

// `has_training_input`: the node names a training_mode input; a constant
// one the frontend folds into attrs["training_mode"] (a value or a
// one-element list). `outputs`: the outputs it gives (its mask the second).
inline bool dropout_is_view(const nlohmann::json& attrs, bool has_training_input, size_t outputs) {
  if (outputs > 1) return false;
  if (!has_training_input) return true;
  if (!attrs.is_object() || !attrs.contains("training_mode")) return false;
  const auto& mode = attrs["training_mode"];
  const auto& value = mode.is_array() && !mode.empty() ? mode[0] : mode;
  return value.is_number() && value.get<double>() == 0;
}

}  // namespace aoe::sdk
