// SPDX-License-Identifier: Apache-2.0
// The C++ face of aoe_status: an exception on either side, a value across.
#pragma once

#include <stdexcept>
#include <string>

#include "aoe/abi/status.h"

namespace aoe::sdk {

enum class StatusCode : int {
  ok = AOE_STATUS_OK,
  invalid_argument = AOE_STATUS_INVALID_ARGUMENT,
  not_found = AOE_STATUS_NOT_FOUND,
  unsupported = AOE_STATUS_UNSUPPORTED,
  cancelled = AOE_STATUS_CANCELLED,
  internal = AOE_STATUS_INTERNAL,
  io = AOE_STATUS_IO,
};

inline const char* to_string(StatusCode code) {
  switch (code) {
    case StatusCode::ok: return "ok";
    case StatusCode::invalid_argument: return "invalid argument";
    case StatusCode::not_found: return "not found";
    case StatusCode::unsupported: return "unsupported";
    case StatusCode::cancelled: return "cancelled";
    case StatusCode::internal: return "internal error";
    case StatusCode::io: return "i/o error";
  }
  return "unknown status";
}

class Error : public std::runtime_error {
 public:
  Error(StatusCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  StatusCode code() const { return code_; }

 private:
  StatusCode code_;
};

}  // namespace aoe::sdk
