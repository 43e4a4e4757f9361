// Tunes one op task: time the default, consult the bank, search, record.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "aoe/sdk/tuning_mode.h"
#include "measurement_log.h"
#include "op_tasks.h"
#include "search_loop.h"
#include "tune_options.h"
#include "tune_result.h"
#include "tuning_outcome.h"

namespace aoe::opat {

using aoe::modes::SearchProgress;

using aoe::modes::Outcome;

struct TuneOptions : aoe::modes::TuneOptions {
  bool warm_start = true;  // open each search with configs banked for nearby shapes
  // Bank the default when no config beats it, so a model run finds every
  // tuned op in the bank (the run's --tune_on_miss). Counted unsatisfied still.
  bool bank_default = false;
};

// bank_result() stores its bank_record.
struct TaskResult : aoe::modes::TuneResult {
  std::vector<std::string> changed_tags;  // Format / Schedule / Impl knobs that differ from the default
  uint64_t warm_seeds = 0;   // configs from banked ops of nearby shapes, measured first
  double best_seed_us = 0;   // the fastest of them; 0 when none ran
  std::string bank_entry;    // hash of the bank key
  bool improved = false;     // it beat the default
};

// A task's result as one rank sends it to another.
nlohmann::json to_json(const TaskResult& result);
TaskResult task_result_from_json(const nlohmann::json& j);

struct TunedTask {
  TaskGroup group;
  TaskResult result;
};

// Tunes and banks: measure_task() then bank_result().
TaskResult tune_task(const aoe::sdk::Job& job, const TaskGroup& group, const TuneOptions& options,
                     const SearchProgress& progress = {});

// Tunes without writing the bank: under mpirun the ranks measure, rank 0 banks.
TaskResult measure_task(const aoe::sdk::Job& job, const TaskGroup& group, const TuneOptions& options,
                        const SearchProgress& progress = {});
// Stores result.bank_record, if any, and says what the bank did with it.
void bank_result(const aoe::sdk::Host& host, TaskResult& result);

}  // namespace aoe::opat
