// What every mode's tuning of one task reads from the job's options (AOE's
// names: budget, time_limit, stall, seed, repeat_tune, parallel_num,
// build_threads), in one place.
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <string>

#include "measurement_log.h"
#include "search_stop.h"

namespace aoe::modes {

struct TuneOptions {
  StopLimits limits;
  uint64_t seed = 0;
  bool repeat_tune = false;  // search again where the bank has the task
  std::string soc_version;
  uint32_t batch = 8;          // configs built and timed together (TUNING_PARALLEL_NUM)
  unsigned build_threads = 1;  // configs built at once, when the device allows (TE_PARALLEL_COMPILER)
  MeasurementLog* log = nullptr;  // every measured candidate, when set
};

// `described`: the device's describe(); builds run concurrently only where
// it says `concurrent_build`.
inline void read_tune_options(const nlohmann::json& opts, const nlohmann::json& described, TuneOptions& out) {
  out.limits.budget = opts.value("budget", uint64_t{64});
  out.limits.time_limit_s = opts.value("time_limit", 0.0);
  out.limits.stall = opts.value("stall", uint64_t{0});
  out.seed = opts.value("seed", uint64_t{0});
  out.repeat_tune = opts.value("repeat_tune", false);
  out.soc_version = opts.value("soc_version", "");
  out.batch = static_cast<uint32_t>(std::max<uint64_t>(1, opts.value("parallel_num", uint64_t{8})));
  out.build_threads = described.value("concurrent_build", false)
                          ? static_cast<unsigned>(std::max<uint64_t>(1, opts.value("build_threads", uint64_t{1})))
                          : 1;
}

}  // namespace aoe::modes
