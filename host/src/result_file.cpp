#include "result_file.h"

#include <unistd.h>

#include <algorithm>
#include <ctime>

#include "aoe/sdk/atomic_file.h"

namespace aoe::host {

using aoe::sdk::write_atomically;

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

namespace {

std::string section_name(std::string mode) {
  std::transform(mode.begin(), mode.end(), mode.begin(), ::toupper);
  return mode;
}

}  // namespace

ResultFile::ResultFile(const std::filesystem::path& dir, const std::string& mode,
                       std::chrono::system_clock::time_point start)
    : ResultFile(dir / ("aoe_result_" + mode + "_" + result_timestamp(start) + "_pid" + std::to_string(::getpid()) +
                        ".json"),
                 mode) {}

ResultFile::ResultFile(const std::filesystem::path& file, const std::string& mode)
    : section_name_(section_name(mode)), path_(file) {
  if (path_.has_parent_path()) std::filesystem::create_directories(path_.parent_path());
}

// AOE's shape: a list of one-key objects, "basic" first, then the mode's section.
nlohmann::json ResultFile::document(const nlohmann::json& basic, const nlohmann::json& section) const {
  nlohmann::json content = nlohmann::json::array();
  content.push_back(nlohmann::json::object({{"basic", basic}}));
  content.push_back(nlohmann::json::object({{section_name_, section}}));
  return content;
}

void ResultFile::write(const nlohmann::json& document) const {
  const std::string text = document.dump(4) + "\n";
  write_atomically(path_, text);
  if (mirror_.empty()) return;
  std::filesystem::create_directories(mirror_.parent_path());
  write_atomically(mirror_, text);
}

}  // namespace aoe::host
