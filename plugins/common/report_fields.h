// Fields of AOE's result files and bank entries that every tuning mode fills
// the same way.
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <string>

namespace aoe::modes {

// AOE's "35.35%" for 134 us -> 99 us: (before - after) / after, the formula
// of every example AOE documents (the speed-up, not the share of time saved).
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

// A mode's *_tuning_result: a run cut short is incomplete; a finished run
// that could not tune some task failed, as AOE reports it, though the tasks
// it did tune are kept.
inline std::string tuning_result(bool complete, bool any_failed) {
  return !complete ? "tuning incomplete" : any_failed ? "tuning failed" : "tuning successful";
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
