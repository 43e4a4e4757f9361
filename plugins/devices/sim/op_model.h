// One op as the simulator models it: its tuning space, which configs fit the
// SoC, and how long a config takes. Each op family implements it.
#pragma once

#include "aoe/sdk/measurement.h"
#include "aoe/sdk/tuning_space.h"

namespace aoe::sim {

class OpModel {
 public:
  virtual ~OpModel() = default;
  // With the default config: the tiling CANN's own heuristic would pick.
  virtual const sdk::TuningSpace& space() const = 0;
  // ok, or invalid naming the broken constraint; never a time.
  virtual sdk::Measurement check(const sdk::Config& config) const = 0;
  // Deterministic; only for configs check() accepts.
  virtual double time_us(const sdk::Config& config) const = 0;
  // The chip's bound for the op: no config may beat it.
  virtual double roofline_us() const = 0;
};

}  // namespace aoe::sim
