// Walks every config of a tuning space, valid or not: the tests' exhaustive search.
#pragma once

#include <functional>

#include "aoe/sdk/tuning_space.h"

namespace aoe::sim {

inline void for_each_config(const sdk::TuningSpace& space, const std::function<void(const sdk::Config&)>& visit) {
  sdk::Config c(space.knobs.size());
  std::function<void(size_t)> walk = [&](size_t i) {
    if (i == c.size()) return visit(c);
    for (auto v : space.knobs[i].values) {
      c[i] = v;
      walk(i + 1);
    }
  };
  walk(0);
}

}  // namespace aoe::sim
