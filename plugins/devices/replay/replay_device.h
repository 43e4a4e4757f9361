// The replay device: tunes a kernel Kernel Tuner measured exhaustively,
// answering each config with what its cachefile recorded, and keeping a
// simulated clock of what those measurements cost.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "aoe/sdk/device.h"
#include "aoe/sdk/component.h"
#include "recorded_space.h"

namespace aoe::replay {

// Options: `cachefile` (required), `kernel` (the BAT/T4 .kernel.json),
// `noise` ("off" or "recorded"), `seed`, `device_name` (the device the
// cachefile was recorded on, when it does not say), `max_inflated_mb`.
struct ReplayOptions {
  enum class Noise { off, recorded };
  std::filesystem::path cachefile;
  std::optional<std::filesystem::path> kernel;
  Noise noise = Noise::off;
  uint64_t seed = 0;
  std::string device_name;  // empty: the cachefile's, else its file name's
  uint64_t max_bytes = kDefaultMaxBytes;

  static ReplayOptions parse(const nlohmann::json& options, const std::string& component);
};

// The time the recorded measurements took, summed as they are replayed.
class SimulatedClock {
 public:
  void advance(double ms, bool new_evaluation) {
    std::lock_guard<std::mutex> lock(mutex_);
    ms_ += ms;
    evaluations_ += new_evaluation ? 1 : 0;
  }
  double seconds() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return ms_ / 1000;
  }
  uint64_t evaluations() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return evaluations_;
  }

 private:
  mutable std::mutex mutex_;
  double ms_ = 0;
  uint64_t evaluations_ = 0;
};

class ReplayCandidate final : public sdk::Candidate {
 public:
  explicit ReplayCandidate(const Record& record) : record_(record) {}
  const Record& record() const { return record_; }

 private:
  const Record& record_;
};

class ReplayTask final : public sdk::DeviceTask {
 public:
  ReplayTask(std::shared_ptr<const RecordedSpace> recorded, ReplayOptions::Noise noise, uint64_t seed,
             std::shared_ptr<SimulatedClock> device_clock);

  sdk::TuningSpace space() const override { return recorded_->space(); }
  sdk::Measurement check(const sdk::Config& config) const override { return recorded_->check(config); }
  // Charges the recorded compile time; a recorded compile failure is
  // build_failed and charges all it cost.
  sdk::Built build(const sdk::Config& config) override;
  // Charges the rest of each recorded cost; a recorded runtime failure is run_failed.
  std::vector<sdk::Measurement> measure(const std::vector<sdk::Candidate*>& batch,
                                        const sdk::MeasureOptions& options) override;

  // What evaluating `config` (build, then measure) costs in seconds of the
  // recorded session; 0 for a config check() refuses, as a tuner never runs it.
  double cost_s(const sdk::Config& config) const;
  // This task's evaluations so far, in seconds of the recorded session.
  double simulated_time_s() const { return clock_.seconds(); }
  const RecordedSpace& recorded() const { return *recorded_; }

 private:
  void charge(double ms, bool new_evaluation);
  sdk::Measurement timed(const Record& record, uint32_t repeats);

  std::shared_ptr<const RecordedSpace> recorded_;
  ReplayOptions::Noise noise_;
  std::mt19937_64 rng_;
  SimulatedClock clock_;
  std::shared_ptr<SimulatedClock> device_clock_;
};

class ReplayDevice final : public sdk::Device {
 public:
  explicit ReplayDevice(const sdk::CreateArgs& args);
  explicit ReplayDevice(ReplayOptions options);

  // soc_version is the recorded GPU; see README.md for the rest.
  nlohmann::json describe() const override;
  // The task's op_type must be the recorded kernel's name, else unsupported; shapes are not used.
  std::unique_ptr<sdk::DeviceTask> prepare(const sdk::OpTask& task) override;
  // prepare() as the concrete task, for callers that want its clock and costs.
  std::unique_ptr<ReplayTask> prepare_replay(const sdk::OpTask& task);

  const RecordedSpace& recorded() const { return *recorded_; }
  // Every evaluation of every task prepared so far, in seconds of the recorded session.
  double simulated_time_s() const { return clock_->seconds(); }

 private:
  ReplayOptions options_;
  std::shared_ptr<const RecordedSpace> recorded_;
  std::shared_ptr<SimulatedClock> clock_;
};

}  // namespace aoe::replay
