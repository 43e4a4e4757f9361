// The tuning space of a recorded kernel: one knob per tuning parameter,
// every recorded configuration found by its knob values, and which
// configurations are valid.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "aoe/sdk/measurement.h"
#include "aoe/sdk/tuning_space.h"
#include "cachefile.h"
#include "kernel_description.h"
#include "parameter_space.h"

namespace aoe::replay {

class RecordedSpace {
 public:
  // With a kernel description, its parameter values are the knobs' domains
  // and its conditions decide validity; without one, the knobs come from
  // the cachefile's tune_params and a config is valid iff it was recorded
  // and not as InvalidConfig. Throws sdk::Error(invalid_argument) naming the
  // files when they do not describe the same parameters.
  RecordedSpace(Cachefile cache, std::optional<KernelDescription> kernel);

  const sdk::TuningSpace& space() const { return space_; }
  const ParameterSpace& parameters() const { return parameters_; }
  const Cachefile& cachefile() const { return cache_; }
  const std::optional<KernelDescription>& kernel() const { return kernel_; }

  // The record of a config, or nullptr when it was never measured.
  const Record* record(const sdk::Config& config) const;
  // The config of a record; none when a value lies outside the knobs' domains.
  std::optional<sdk::Config> config_of(const Record& record) const;
  // ok, or invalid saying which condition the config breaks, or that it was
  // not recorded, or recorded as InvalidConfig.
  sdk::Measurement check(const sdk::Config& config) const;

  // The cachefile's records by outcome; valid + failed + invalid = recorded.
  struct Counts {
    size_t recorded = 0, valid = 0, compile_failed = 0, runtime_failed = 0, invalid = 0;
    size_t failed() const { return compile_failed + runtime_failed; }
  };
  const Counts& counts() const { return counts_; }
  // The fastest timed config the space reaches.
  const Record& optimum() const { return cache_.records[optimum_]; }
  // What the default config is and why: see README.md.
  const std::string& default_source() const { return default_source_; }

  // Where the description's conditions and the cachefile disagree, over the
  // knobs' whole product (so it walks every config: call it when needed).
  struct Disagreements {
    uint64_t accepted_unrecorded = 0;        // the conditions accept it, Kernel Tuner never measured it
    uint64_t accepted_recorded_invalid = 0;  // the conditions accept it, Kernel Tuner recorded InvalidConfig
    uint64_t rejected_recorded = 0;          // the conditions reject it, Kernel Tuner measured it
    uint64_t total() const { return accepted_unrecorded + accepted_recorded_invalid + rejected_recorded; }
  };
  Disagreements constraint_disagreements() const;

 private:
  void index_records();
  void pick_default();

  Cachefile cache_;
  std::optional<KernelDescription> kernel_;
  ParameterSpace parameters_;
  sdk::TuningSpace space_;  // parameters_'s, with the default config
  std::vector<size_t> cache_column_;  // knob -> position in the cachefile's tune_params_keys
  std::map<sdk::Config, size_t> index_;
  Counts counts_;
  size_t optimum_ = 0;
  std::string default_source_;
};

}  // namespace aoe::replay
