// SPDX-License-Identifier: Apache-2.0
// Where C++ meets the C ABI: every exception stops here and becomes a status.
#pragma once

#include <exception>

#include "aoe/abi/status.h"
#include "aoe/sdk/error.h"
#include "aoe/sdk/host.h"

namespace aoe::sdk {

template <class Body>
aoe_status* guarded(const Host& host, Body&& body) noexcept {
  try {
    body();
    return nullptr;
  } catch (const Error& e) {
    return host.make_status(e.code(), e.what());
  } catch (const std::exception& e) {
    return host.make_status(StatusCode::internal, e.what());
  } catch (...) {
    return host.make_status(StatusCode::internal, "unknown exception");
  }
}

}  // namespace aoe::sdk
