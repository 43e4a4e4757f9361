// What a cuda task compiles, feeds and launches for each config: a Kernel
// Tuner problem (t1_plan.h) or one of aoe's own templates (gemm_plan.h).
// The task (cuda_task.h) does the rest the same way for both.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "aoe/sdk/measurement.h"
#include "aoe/sdk/tuning_space.h"
#include "launch_geometry.h"

namespace aoe::cuda {

// One kernel argument, in launch order, with its initial contents.
struct ArgumentData {
  std::string name;
  bool buffer = true;     // else a scalar passed by value
  bool constant = false;  // also copied to the module's __constant__ symbol of its name
  bool output = false;    // checked after the first run
  std::string dtype = "float32";  // how outputs compare: float32/float64 by allclose, others exactly
  std::string bytes;
};

class KernelPlan {
 public:
  virtual ~KernelPlan() = default;
  virtual sdk::TuningSpace space() const = 0;
  // ok, or invalid with the constraint a config breaks.
  virtual sdk::Measurement check(const sdk::Config& config) const = 0;
  virtual sdk::Config default_config() const = 0;
  // The whole source NVRTC compiles; its config as `#define` lines.
  virtual std::string source(const sdk::Config& config) const = 0;
  virtual std::vector<std::string> compile_options() const = 0;
  virtual LaunchGeometry launch(const sdk::Config& config) const = 0;
  virtual std::string kernel_name() const = 0;
  virtual std::vector<ArgumentData> arguments() const = 0;
  // The outputs' expected bytes, in argument order; none: the default config's outputs are the reference.
  virtual std::optional<std::string> expected_outputs() const = 0;
  // The config's parameter values in the knobs' order, for records.
  virtual std::vector<nlohmann::json> values(const sdk::Config& config) const = 0;
  // The output check's tolerances for a config; < 0: the device's options'.
  virtual double rtol(const sdk::Config&) const { return -1; }
  virtual double atol(const sdk::Config&) const { return -1; }
  // Whether the outputs are zeroed before every launch (timed with it): a
  // kernel that adds into them needs it.
  virtual bool zeroes_outputs(const sdk::Config&) const { return false; }
};

}  // namespace aoe::cuda
