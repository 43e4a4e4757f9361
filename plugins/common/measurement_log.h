// measurements.jsonl in a run's workspace: one line per measured candidate,
// appended and flushed as it is measured, so the log of a run that crashed or
// was interrupted holds everything it measured.
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>

#include "aoe/sdk/measurement.h"

namespace aoe::modes {

class MeasurementLog {
 public:
  // Appends to `file`, creating its folder; an empty path, or a file that
  // cannot be opened, logs nothing.
  explicit MeasurementLog(const std::filesystem::path& file) {
    if (file.empty()) return;
    std::error_code ec;
    std::filesystem::create_directories(file.parent_path(), ec);
    out_.open(file, std::ios::app);
  }

  // task: the op or subgraph as the result file names it; signature: its bank
  // key's hash; evaluation: its index in the task's search, from 1;
  // forward_op: a training step's kernel names the forward op it comes from.
  void record(const std::string& task, const std::string& signature, const std::string& searcher,
              const nlohmann::json& config, const aoe::sdk::Measurement& m, uint64_t evaluation, bool seed,
              const std::string& forward_op = {}) {
    if (!out_.is_open()) return;
    const double wall = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    nlohmann::json line = {{"task", task},
                           {"signature", signature},
                           {"searcher", searcher},
                           {"evaluation", evaluation},
                           {"seed", seed},
                           {"config", config},
                           {"status", aoe::sdk::to_string(m.status)},
                           {"wall_time_s", wall}};
    if (!forward_op.empty()) line["forward_op"] = forward_op;
    if (m.ok()) {
      line["time_us"] = m.time_us;
      line["repeats"] = m.repeats;
      line["noise"] = m.noise;
    }
    // A failure's reason; for a timing, what the device adds (a GPU's clock and temperature).
    if (!m.ok() || !m.message.empty()) line["message"] = m.message;
    std::lock_guard<std::mutex> lock(mutex_);
    out_ << line.dump() << '\n';
    out_.flush();
  }

 private:
  std::mutex mutex_;
  std::ofstream out_;
};

}  // namespace aoe::modes
