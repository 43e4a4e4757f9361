// Candidates run in forked worker processes, so one that crashes, hangs or
// corrupts memory costs only its own result. A worker reports each job's
// start, each finished run of a job's kernels, and each result over a pipe;
// the parent kills it when a run overruns its time-out, and a fresh worker
// carries on with the next job.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "aoe/sdk/measurement.h"

namespace aoe::cpu {

struct WorkerOptions {
  // Per run: from a job's start, and again from each run it reports done
  // (WorkerProgress::ran), so a job timed over many runs of a slow kernel
  // is killed only when one run overruns, not when the runs add up.
  double timeout_s = 20;
};

// What jobs in a worker tell the process that waits on them.
class WorkerProgress {
 public:
  virtual ~WorkerProgress() = default;
  // `jobs` jobs are about to run as one step: the time-out allows that many.
  virtual void begin(size_t jobs) = 0;
  virtual void report(size_t index, const sdk::Measurement& result) = 0;
  // A run of the step at hand has ended: the time-out starts again.
  virtual void ran() {}
};

// job(i, progress) for every i in [0, count), each in a worker process; a
// job tells `progress` of each run it ends (ran()). A job whose worker dies
// comes back run_failed naming the signal or exit code; one with a run
// that overruns, timeout.
std::vector<sdk::Measurement> run_isolated(size_t count,
                                           const std::function<sdk::Measurement(size_t, WorkerProgress&)>& job,
                                           const WorkerOptions& options);

// Every job of `jobs` in one worker process, which reports each result as
// it has it. True when all `count` came; false when the worker died or
// overran a step, and the caller runs the jobs one by one with
// run_isolated to learn which one did it.
bool run_together(size_t count, const std::function<void(WorkerProgress&)>& jobs, const WorkerOptions& options,
                  std::vector<sdk::Measurement>& results);

}  // namespace aoe::cpu
