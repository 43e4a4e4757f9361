// SPDX-License-Identifier: Apache-2.0
// AOE's performance improvement: "35.35%" for 134 us -> 99 us, that is
// (before - after) / after, the formula of every example AOE documents (the
// speed-up, not the share of time saved). The host and every mode print it.
#pragma once

#include <cmath>
#include <cstdio>
#include <string>

namespace aoe::sdk {

inline double improvement(double before, double after) { return after > 0 ? (before - after) / after * 100 : 0.0; }

// Cut, not rounded, to two decimals: AOE's 5.600486 -> 3.610442 ms is
// "55.11%" where rounding gives 55.12. The nudge keeps 12.34 from printing
// as 12.33 when 1234 is not exact in binary.
inline std::string percent(double before, double after) {
  const double v = improvement(before, after);
  char text[32];
  std::snprintf(text, sizeof text, "%.2f%%", std::trunc(v * 100 + (v < 0 ? -1e-6 : 1e-6)) / 100);
  return text;
}

}  // namespace aoe::sdk
