// A training step's schedule as a Chrome trace (the Trace Event Format that
// chrome://tracing and Perfetto load): per candidate split one process, with
// compute (forward, backward) on one thread and the allreduce buckets on another.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "gdat_report.h"
#include "gradient_profile.h"

namespace aoe::gdat {

// {"traceEvents": [...], "displayTimeUnit": "ms"}: complete events ("ph": "X")
// with name, cat, ts and dur in microseconds from the step's start, pid, tid
// and args (a bucket's bytes, first and last gradient); metadata events
// ("ph": "M") name each process and thread.
nlohmann::json chrome_trace(const GradientProfile& profile, const std::vector<const Candidate*>& candidates);

}  // namespace aoe::gdat
