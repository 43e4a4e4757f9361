// SPDX-License-Identifier: Apache-2.0
// A value read from a file that becomes one component of a path: a bank
// key's soc_version, hash or space version, a device's or a cluster's name.
// Banks are shared and merged from files someone else made, so such a value
// must not reach outside its folder: letters, digits and . _ - + alone, 1 to
// 128 of them, not starting with '.' (no "..", no hidden file, no separator).
#pragma once

#include <string>
#include <string_view>

#include "aoe/sdk/error.h"

namespace aoe::sdk {

inline bool safe_path_component(std::string_view value) {
  if (value.empty() || value.size() > 128 || value.front() == '.') return false;
  for (const char c : value) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '_' || c == '-' || c == '+';
    if (!ok) return false;
  }
  return true;
}

// A display name made into a component: a Kernel Tuner cachefile's device_name
// ("NVIDIA RTX A4000") becomes "NVIDIA_RTX_A4000"; every character outside the
// set becomes '_', as does a leading '.', and it is cut at 128. Empty for an empty name.
inline std::string path_component_from(std::string_view name) {
  std::string out(name.substr(0, 128));
  for (char& c : out)
    if (!safe_path_component(std::string_view(&c, 1)) && c != '.') c = '_';
  if (!out.empty() && out.front() == '.') out.front() = '_';
  return out;
}

// Throws Error(invalid_argument): "<what> '<value>' cannot name a folder or file: ..."
inline void check_path_component(std::string_view value, const std::string& what) {
  if (safe_path_component(value)) return;
  std::string shown(value.substr(0, 160));
  for (char& c : shown)
    if (static_cast<unsigned char>(c) < 0x20) c = '?';
  throw Error(StatusCode::invalid_argument,
              what + " '" + shown + "' cannot name a folder or file: use letters, digits and . _ - + alone " +
                  "(1 to 128, not starting with '.')");
}

}  // namespace aoe::sdk
