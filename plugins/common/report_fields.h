// Fields of AOE's result files and bank entries that every tuning mode fills
// the same way.
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>

namespace aoe::modes {

// AOE's "12.34%": how much faster `after` is than `before`.
inline std::string percent(double before, double after) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f%%", before > 0 ? (before - after) / before * 100 : 0.0);
  return text;
}

// The bank outcome counts: total = add + hit + unsatisfied, hit = update + reserved.
inline nlohmann::json repo_summary(int add, int update, int reserved, int unsatisfied) {
  const int hit = update + reserved;
  return {{"repo_add_num", add},
          {"repo_hit_num", hit},
          {"repo_reserved_num", reserved},
          {"repo_unsatisfied_num", unsatisfied},
          {"repo_update_num", update},
          {"total_num", add + hit + unsatisfied}};
}

// A bank entry's tuned_at: now, in UTC, ISO 8601.
inline std::string utc_now() {
  const auto t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&t, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

}  // namespace aoe::modes
