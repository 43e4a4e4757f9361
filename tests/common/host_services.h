// The host side of the C table as the plugin tests play it: statuses are
// made and read here; nothing else is offered.
#pragma once

#include <cstdint>
#include <string>

#include "aoe/sdk/plugin.h"

// What a test's host makes of a status; opaque to the plugin.
struct aoe_status {
  int32_t code;
  std::string message;
};

namespace aoe::test {

inline aoe_host_services host_services() {
  aoe_host_services s{};
  s.struct_size = sizeof s;
  s.status_create = [](void*, int32_t code, const char* message) { return new aoe_status{code, message}; };
  s.status_code = [](const aoe_status* status) { return status->code; };
  s.status_message = [](const aoe_status* status) { return status->message.c_str(); };
  s.status_destroy = [](aoe_status* status) { delete status; };
  return s;
}

}  // namespace aoe::test
