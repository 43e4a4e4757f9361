// How rank 0 drives the other ranks through a measurement: it broadcasts
// each step (the profile, a calibration sweep, a replay, the end), and every
// rank takes part in the collective it names. Only rank 0 decides anything,
// so the ranks cannot disagree about what is measured.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

#include "mpi_measure.h"

namespace aoe::gdat {

class MeasureDriver {
 public:
  explicit MeasureDriver(const MpiWorld& world) : world_(world) {}
  void send_profile(const GradientProfile& profile);
  std::vector<TablePoint> calibrate(const std::vector<double>& sizes, int repeats);
  ReplayResult replay(const Split& split, int warmup, int steps, const std::function<bool()>& cancelled);
  // Releases the other ranks: summary is what they report; an error makes them fail with it.
  void finish(const nlohmann::json& summary);
  void fail(const std::string& message);

 private:
  void send(const nlohmann::json& message);
  const MpiWorld& world_;
  GradientProfile profile_;
  bool finished_ = false;
};

// The other ranks: follow rank 0 until it finishes; returns its summary.
// Throws aoe::sdk::Error when rank 0 failed.
nlohmann::json serve_measurements(const MpiWorld& world);

}  // namespace aoe::gdat
