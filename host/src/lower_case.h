// ASCII lower case, for names and values a user may write in either case.
#pragma once

#include <algorithm>
#include <cctype>
#include <string>

namespace aoe::host {

inline std::string lower_case(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

}  // namespace aoe::host
