// The ascend device's options, from the JSON the user gives (--device_options).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

#include "evaluate.h"

namespace aoe::ascend {

struct AscendOptions {
  std::string acl_library;  // libascendcl.so to load; empty: found as acl_library.h says
  int32_t device_id = 0;    // the NPU, 0 .. count - 1; ASCEND_DEVICE_ID unless the option says
  uint64_t seed = 0;        // of the random inputs candidates run on
  cpu::Tolerance tolerance;  // rtol, atol: each output element against the cpu reference

  // Throws sdk::Error(invalid_argument) naming the option and what it takes.
  static AscendOptions parse(const nlohmann::json& options);
};

}  // namespace aoe::ascend
