// Which precision a training step computes in, from the option and the device.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace aoe::training {

// "mixed" or "fp32" as given; "" picks by the device: mixed where its
// describe() lists float16 among its "dtypes", or lists no "dtypes" at all
// (a device that does not say is taken to run half precision, as Ascend
// SoCs do); fp32 where the list lacks float16 (the cpu device's).
bool mixed_precision(const std::string& option, const nlohmann::json& described);

}  // namespace aoe::training
