// Progress lines for the console: "[task 3/12] note (12.4 s)". A new step is
// always shown; updates within a step at most once a second, so a fast
// search does not flood the terminal.
#pragma once

#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

namespace aoe::host {

class ProgressPrinter {
 public:
  ProgressPrinter() : started_(Clock::now()) {}

  void report(spdlog::logger& logger, const std::string& stage, uint64_t done, uint64_t total,
              const std::string& note) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto now = Clock::now();
    const bool new_step = stage != stage_ || done != done_;
    if (!new_step && now - last_ < std::chrono::seconds(1)) return;
    stage_ = stage;
    done_ = done;
    last_ = now;
    logger.info("[{} {}/{}] {} ({:.1f} s)", stage, done, total, note,
                std::chrono::duration<double>(now - started_).count());
  }

 private:
  using Clock = std::chrono::steady_clock;
  std::mutex mutex_;
  Clock::time_point started_, last_{};
  std::string stage_;
  uint64_t done_ = 0;
};

}  // namespace aoe::host
