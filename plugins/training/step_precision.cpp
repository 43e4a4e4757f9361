#include "step_precision.h"

#include "aoe/sdk/error.h"

namespace aoe::training {

bool mixed_precision(const std::string& option, const nlohmann::json& described) {
  if (option == "mixed") return true;
  if (option == "fp32") return false;
  if (!option.empty())
    throw aoe::sdk::Error(aoe::sdk::StatusCode::invalid_argument,
                          "training_precision: '" + option + "' is not one of mixed, fp32");
  const auto dtypes = described.find("dtypes");
  if (dtypes == described.end() || !dtypes->is_array()) return true;
  for (const auto& d : *dtypes)
    if (d.is_string() && d.get<std::string>() == "float16") return true;
  return false;
}

}  // namespace aoe::training
