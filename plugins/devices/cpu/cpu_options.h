// The cpu device's options, from the JSON the user gives (--device_options).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

#include "evaluate.h"
#include "isa.h"
#include "timing.h"

namespace aoe::cpu {

struct CpuOptions {
  bool isolate = true;           // isolation: "process" (default) or "none"
  double timeout_s = 20;         // per candidate, in its worker
  TimingOptions timing;          // cache, stable_within, max_repeats, max_seconds
  Tolerance tolerance;           // rtol, atol: each output element against the reference
  uint64_t seed = 0;             // of the random inputs
  int threads = 0;               // cap on the threads knob; 0: every CPU this process may use
  std::optional<Isa> isa;        // cap on the instruction sets used
  Fault fault = Fault::none;     // test aid: make candidates fail on purpose
  uint64_t fault_every = 1;      // ... every Nth one built

  // Throws sdk::Error(invalid_argument) naming the option and what it takes.
  static CpuOptions parse(const nlohmann::json& options);
  nlohmann::json describe() const;
};

}  // namespace aoe::cpu
