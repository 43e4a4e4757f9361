// Candidates run in forked worker processes, so one that crashes, hangs or
// corrupts memory costs only its own result. A worker reports each job's
// start and result over a pipe; the parent kills it when a job overruns its
// time-out, and a fresh worker carries on with the next job.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "aoe/sdk/measurement.h"

namespace aoe::cpu {

struct WorkerOptions {
  double timeout_s = 20;  // per job, from the moment it starts
};

// job(i) for every i in [0, count), each in a worker process. A job whose
// worker dies comes back run_failed naming the signal or exit code; one
// that overruns, timeout.
std::vector<sdk::Measurement> run_isolated(size_t count, const std::function<sdk::Measurement(size_t)>& job,
                                           const WorkerOptions& options);

}  // namespace aoe::cpu
