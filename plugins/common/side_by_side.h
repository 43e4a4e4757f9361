// A search's winner timed again beside the config it must beat, in one
// batch. On a real machine a config timed alone can win by the noise of its
// moment (the machine got quieter between two batches); what goes into a
// bank must still win when both are timed together.
#pragma once

#include <limits>
#include <optional>

#include "aoe/sdk/device_client.h"
#include "search_loop.h"

namespace aoe::modes {

// Where the device's timings carry noise, the winner must be this much
// faster side by side: on the cpu the same pair timed in turns again and
// again differs by about 1% (sgat_bench's ratios from round to round), so a
// smaller win is as likely the moment's as the config's. Noiseless timings
// (the simulator) take any win.
inline constexpr double kNoisyMargin = 0.01;

// Where a search starts. A noiseless device's figures compare across
// batches, so the incumbent's stands. A noisy one's do not: the incumbent
// was timed beside other configs than the search's, and what else a batch
// holds moves a config's time (each evicts the others' data from cache). The
// search then starts from nothing, and its own winner goes to confirm_best.
inline Best search_start(const Best& incumbent, const aoe::sdk::Measurement& first) {
  if (first.noise > 0) return Best{{}, std::numeric_limits<double>::infinity()};
  return incumbent;
}

// True when `best`, the search's winner, beats the incumbent (the banked
// config, else the default timed as `first`) timed beside it, by
// kNoisyMargin where the timings are noisy; on a noiseless device it must
// beat the incumbent's figure first. `best`, and `before_us` against the
// default, then carry the pair's figures. Otherwise `best` becomes the incumbent.
inline bool confirm_best(const aoe::sdk::TaskClient& task, const std::optional<Best>& banked,
                         const aoe::sdk::Measurement& first, Best& best, double& before_us) {
  const Best incumbent = banked ? *banked : Best{task.space().default_config, first.time_us};
  bool holds = !best.config.empty() && best.config != incumbent.config &&
               (first.noise > 0 || best.time_us < incumbent.time_us);
  if (holds) {
    const auto again = task.evaluate({incumbent.config, best.config}, {});
    const bool noisy = again[0].noise > 0 || again[1].noise > 0;
    holds = again[0].ok() && again[1].ok() && again[1].time_us < again[0].time_us * (noisy ? 1 - kNoisyMargin : 1);
    if (holds) {
      best.time_us = again[1].time_us;
      if (!banked) before_us = again[0].time_us;
    }
  }
  if (!holds) best = incumbent;
  return holds;
}

}  // namespace aoe::modes
