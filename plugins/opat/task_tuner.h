// Tunes one op task: time the default, consult the bank, search, record.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "aoe/sdk/tuning_mode.h"
#include "op_tasks.h"

namespace aoe::opat {

// How a task ended, in AOE's bank vocabulary.
enum class Outcome { added, updated, reserved, unsatisfied, failed, unsupported, interrupted };

const char* to_string(Outcome outcome);

struct TuneOptions {
  uint64_t budget = 64;
  uint64_t seed = 0;
  bool repeat_tune = false;
  std::string soc_version;
  uint32_t batch = 8;  // configs built and timed together
};

struct TaskResult {
  Outcome outcome = Outcome::failed;
  std::string reason;  // why it failed, when it did
  double before_us = 0;  // the device's default config
  double after_us = 0;   // what the model runs with now
  nlohmann::json config = nlohmann::json::object();  // the config behind after_us
  std::vector<std::string> changed_tags;  // Format / Schedule / Impl knobs that differ from the default
  uint64_t evaluations = 0;
  std::string bank_entry;  // hash of the bank key
};

TaskResult tune_task(const aoe::sdk::Job& job, const TaskGroup& group, const TuneOptions& options);

}  // namespace aoe::opat
