// How a tuning mode shares its tasks among the ranks of mpirun: every rank
// first shows it tunes for rank 0's target and plan; rank 0 then hands the
// tasks out largest first, each to the rank that frees up first, and tunes
// its own share in between; the outcomes come back to rank 0, which alone
// banks them and writes the result file.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "aoe/sdk/tuning_mode.h"
#include "rank_farm.h"

namespace aoe::modes {

// Throws aoe::sdk::Error(invalid_argument) on every rank when a rank's
// target ({"device", "soc_version"}) differs from rank 0's, naming both, or
// when it planned other tasks (task_ids: the tasks' bank hashes, in order).
// A device that measures on the host's own CPUs (the cpu device) must have
// them to itself: two ranks of one machine that may run on a common CPU are
// refused too, since each would time the other's work as its own.
void check_same_target(const RankFarm& farm, const nlohmann::json& target, const std::vector<std::string>& task_ids,
                       bool measures_on_host_cpus);

// Task numbers, the largest estimate first; ties keep their order.
std::vector<size_t> largest_first(const std::vector<double>& estimates);

struct FarmedRun {
  // Rank 0 tunes a task itself; it calls `serve` between search batches so
  // the ranks that freed up meanwhile get their next task.
  std::function<nlohmann::json(size_t task, const std::function<void()>& serve)> tune_here;
  // A task's outcome on rank 0, as tasks finish, with the rank that tuned it.
  std::function<void(size_t task, const nlohmann::json& outcome, int rank)> finished;
  std::function<bool()> cancelled;  // asked on rank 0: hand out nothing more
  // A rank silent this long while at a task is lost (0: never): its task
  // goes to another rank, or, lost by a second rank too, becomes the
  // outcome `failed` makes. Workers speak between search batches and
  // at least once a second while they search.
  double lost_after_s = 0;
  std::function<nlohmann::json(size_t task, const std::string& reason)> failed;
  std::function<void(const std::string& note)> note;  // a lost rank, for the log
};

// Rank 0: tunes the tasks in `order` across the ranks and returns how many
// each rank tuned. Once cancelled it hands out nothing more and waits for the
// tasks under way. With Open MPI a dead rank ends the whole job unless mpirun
// runs with --mca orte_enable_recovery 1; then the others carry on without it.
std::vector<size_t> lead_tasks(const RankFarm& farm, const std::vector<size_t>& order, const FarmedRun& run);

// The other ranks: tune what rank 0 hands out until it says stop; `tune`
// calls farm.heartbeat() between its search batches.
void follow_tasks(const RankFarm& farm, size_t task_count, const std::function<nlohmann::json(size_t task)>& tune);

// A farmed run as every mode starts one: the job's cancellation and
// warnings, its `rank_timeout` option (seconds, 60 by default), and a lost
// task's outcome, the mode's `Result` with the reason (its to_json).
template <class Result>
FarmedRun farmed_run(const aoe::sdk::Job& job, const nlohmann::json& options) {
  FarmedRun run;
  run.cancelled = [&job] { return job.host().cancelled(); };
  run.lost_after_s = static_cast<double>(options.value("rank_timeout", int64_t{60}));
  run.failed = [](size_t, const std::string& reason) {
    Result lost;
    lost.reason = reason;
    return to_json(lost);
  };
  run.note = [&job](const std::string& note) { job.host().warn(note); };
  return run;
}

// The outcomes in by_task so far (slot i: task i's, once it finished), in task order.
template <class Tuned>
std::vector<Tuned> finished_in_order(const std::vector<std::optional<Tuned>>& by_task) {
  std::vector<Tuned> done;
  for (const auto& t : by_task)
    if (t) done.push_back(*t);
  return done;
}

}  // namespace aoe::modes
