#include "run_time_outputs.h"

#include <nlohmann/json.hpp>

#include <algorithm>

#include "aoe/sdk/error.h"

namespace aoe::host {

float* lend_run_time_output(std::vector<std::pair<std::string, FloatArray>>& outputs, const std::string& name,
                            const std::vector<int64_t>& dims) {
  using aoe::sdk::Error;
  using aoe::sdk::StatusCode;
  const auto it = std::find_if(outputs.begin(), outputs.end(), [&](const auto& o) { return o.first == name; });
  if (it == outputs.end())
    throw Error(StatusCode::invalid_argument, "output_buffer: '" + name + "' is not an output of the model");
  const auto refuse = [&](const std::string& why) {
    throw Error(StatusCode::invalid_argument,
                "output '" + name + "': run-time shape " + nlohmann::json(dims).dump() + " " + why);
  };
  for (const int64_t d : dims)
    if (d < 0) refuse("has a negative dim");
  uint64_t count = std::find(dims.begin(), dims.end(), 0) != dims.end() ? 0 : 1;
  for (const int64_t d : dims) {
    if (count == 0) break;
    if (count > kMaxRunTimeOutputValues / static_cast<uint64_t>(d))
      refuse("holds more than " + std::to_string(kMaxRunTimeOutputValues) + " values, the most the host lends one output");
    count *= static_cast<uint64_t>(d);
  }
  it->second.shape = dims;
  it->second.data.assign(static_cast<size_t>(count), 0.0f);
  return count ? it->second.data.data() : nullptr;
}

}  // namespace aoe::host
