// A search's winner timed again beside the config it must beat, in one
// batch. On a real machine a config timed alone can win by the noise of its
// moment (the machine got quieter between two batches); what goes into a
// bank must still win when both are timed together.
#pragma once

#include <optional>

#include "aoe/sdk/device_client.h"
#include "search_loop.h"

namespace aoe::modes {

// True when `best` beats the incumbent (the banked config, else the default
// timed at `default_us`) by the search's figures and again timed beside it;
// `best`, and `before_us` against the default, then carry the pair's
// figures. Otherwise `best` becomes the incumbent.
inline bool confirm_best(const aoe::sdk::TaskClient& task, const std::optional<Best>& banked, double default_us,
                         Best& best, double& before_us) {
  const Best incumbent = banked ? *banked : Best{task.space().default_config, default_us};
  bool holds = best.time_us < incumbent.time_us;
  if (holds) {
    const auto again = task.evaluate({incumbent.config, best.config}, {});
    holds = again[0].ok() && again[1].ok() && again[1].time_us < again[0].time_us;
    if (holds) {
      best.time_us = again[1].time_us;
      if (!banked) before_us = again[0].time_us;
    }
  }
  if (!holds) best = incumbent;
  return holds;
}

}  // namespace aoe::modes
