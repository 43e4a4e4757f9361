// The AOE result file, aoe_result_<mode>_<YYYYMMDD_HHMMSSmmm>_pid<pid>.json:
// [{"basic": {...}}, {"OPAT": {...}}], rewritten whole (atomically) each time
// tuning reports progress.
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <string>

namespace aoe::host {

std::string result_timestamp(std::chrono::system_clock::time_point when);

class ResultFile {
 public:
  // In dir, named by AOE's pattern from the mode and the start time.
  ResultFile(const std::filesystem::path& dir, const std::string& mode, std::chrono::system_clock::time_point start);
  // Exactly file (--result_file), so scripts need no glob.
  ResultFile(const std::filesystem::path& file, const std::string& mode);

  const std::filesystem::path& path() const { return path_; }
  // Also writes the same content to `file` (the workspace's aoe_result.json),
  // so `aoe-host report` finds a run's result from its workspace alone.
  void mirror_to(const std::filesystem::path& file) { mirror_ = file; }
  // basic: tuning_name, tuning_time(s), model, device...; section: the mode's report.
  nlohmann::json document(const nlohmann::json& basic, const nlohmann::json& section) const;
  void write(const nlohmann::json& document) const;

 private:
  std::string section_name_;  // "OPAT", "SGAT", ...
  std::filesystem::path path_;
  std::filesystem::path mirror_;
};

}  // namespace aoe::host
