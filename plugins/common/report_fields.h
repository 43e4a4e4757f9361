// Fields of AOE's result files and bank entries that every tuning mode fills
// the same way.
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <cstdint>
#include <string>

#include "aoe/sdk/improvement.h"

namespace aoe::modes {

using aoe::sdk::improvement;
using aoe::sdk::percent;

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

// A bank entry's provenance: which model, which task (`task_field` names it:
// op_name or subgraph), found by which search, and when.
inline nlohmann::json provenance(const std::string& model, const std::string& task_field, const std::string& task,
                                 const std::string& searcher, uint64_t evaluations, uint64_t seed) {
  return {{"model", model},  {task_field, task}, {"searcher", searcher},
          {"evaluations", evaluations}, {"seed", seed}, {"tuned_at", utc_now()}};
}

}  // namespace aoe::modes
