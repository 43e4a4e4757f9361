#include "result_file.h"

#include <unistd.h>

#include <algorithm>
#include <ctime>

#include "atomic_file.h"

namespace aoe::host {

std::string result_timestamp(std::chrono::system_clock::time_point when) {
  const auto t = std::chrono::system_clock::to_time_t(when);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(when.time_since_epoch()).count() % 1000;
  std::tm local{};
  localtime_r(&t, &local);
  char text[32];
  const size_t n = std::strftime(text, sizeof text, "%Y%m%d_%H%M%S", &local);
  std::snprintf(text + n, sizeof text - n, "%03lld", static_cast<long long>(ms));
  return text;
}

ResultFile::ResultFile(const std::filesystem::path& dir, const std::string& mode,
                       std::chrono::system_clock::time_point start) {
  section_name_ = mode;
  std::transform(section_name_.begin(), section_name_.end(), section_name_.begin(), ::toupper);
  std::filesystem::create_directories(dir);
  path_ = dir / ("aoe_result_" + mode + "_" + result_timestamp(start) + "_pid" + std::to_string(::getpid()) + ".json");
}

void ResultFile::write(const nlohmann::json& basic, const nlohmann::json& section) const {
  const nlohmann::json content = {{"basic", basic}, {section_name_, section}};
  write_atomically(path_, content.dump(4) + "\n");
}

}  // namespace aoe::host
