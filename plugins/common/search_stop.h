// When a task's search ends: its evaluation budget is spent, its time limit
// passes, or it stalls (that many evaluations in a row without a new best).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace aoe::modes {

struct StopLimits {
  uint64_t budget = 64;     // measured evaluations; configs the device refuses as invalid are free
  double time_limit_s = 0;  // 0: none
  uint64_t stall = 0;       // 0: none
};

class SearchStop {
 public:
  explicit SearchStop(const StopLimits& limits)
      : limits_(limits), started_(std::chrono::steady_clock::now()) {}

  void measured(bool new_best) {
    ++evaluations_;
    since_best_ = new_best ? 0 : since_best_ + 1;
  }
  uint64_t evaluations() const { return evaluations_; }
  uint64_t left() const { return limits_.budget > evaluations_ ? limits_.budget - evaluations_ : 0; }

  // Empty while the search may go on; else what ended it.
  std::string reason() const {
    if (left() == 0) return "budget";
    if (limits_.stall > 0 && since_best_ >= limits_.stall) return "stall";
    if (limits_.time_limit_s > 0 && elapsed_s() >= limits_.time_limit_s) return "time limit";
    return {};
  }
  double elapsed_s() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  }

 private:
  StopLimits limits_;
  std::chrono::steady_clock::time_point started_;
  uint64_t evaluations_ = 0;
  uint64_t since_best_ = 0;
};

}  // namespace aoe::modes
