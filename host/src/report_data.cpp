#include "report_data.h"

#include <spdlog/spdlog.h>

#include <fstream>
#include <iterator>

#include "bank_index.h"
#include "command_line.h"
#include "exit_error.h"

namespace aoe::host {
namespace {

using nlohmann::json;

// A workspace file is read whole; one larger than this is no file a run wrote.
constexpr std::uintmax_t max_file_bytes = std::uintmax_t{1} << 30;

void check_size(const std::filesystem::path& file) {
  std::error_code ec;
  const auto bytes = std::filesystem::file_size(file, ec);
  if (ec) throw ExitError(exit_usage, "report: cannot read " + file.string() + ": " + ec.message());
  if (bytes > max_file_bytes)
    throw ExitError(exit_usage, "report: " + file.string() + " is " + std::to_string(bytes) +
                                    " bytes, more than the 1 GiB a run writes; is it the right workspace?");
}

json read_json_file(const std::filesystem::path& file) {
  check_size(file);
  std::ifstream in(file);
  try {
    return json::parse(in);
  } catch (const json::exception& e) {
    throw ExitError(exit_usage, "report: " + file.string() + " is not valid JSON (" + e.what() +
                                    "); was it cut short? run the tuning again to write it whole");
  }
}

// The first file in dir whose name ends with suffix, if any.
std::filesystem::path find_ending(const std::filesystem::path& dir, const std::string& suffix) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return {};
  std::vector<std::filesystem::path> found;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
      found.push_back(e.path());
  }
  std::sort(found.begin(), found.end());
  return found.empty() ? std::filesystem::path() : found.front();
}

// Entries per folder of the bank the run wrote: {"Ascend910": 12, ...}.
json bank_counts(const std::string& bank_path) {
  json counts = json::object();
  std::error_code ec;
  if (bank_path.empty() || !std::filesystem::is_directory(bank_path, ec)) return counts;
  for (const auto& sub : std::filesystem::directory_iterator(bank_path, ec))
    if (sub.is_directory(ec) && sub.path().filename().string().front() != '.')
      counts[sub.path().filename().string()] = bank_entry_files(sub.path()).size();
  return counts;
}

}  // namespace

json read_measurements(const std::filesystem::path& file, size_t& skipped_lines) {
  check_size(file);
  std::ifstream in(file);
  json tasks = json::object();
  size_t number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (line.empty()) continue;
    try {
      const json m = json::parse(line);
      json& task = tasks[m.at("task").get<std::string>()];
      if (task.is_null()) task = {{"signature", m.value("signature", "")}, {"searcher", m.value("searcher", "")},
                                  {"points", json::array()}};
      json point = {{"evaluation", m.at("evaluation")}, {"seed", m.value("seed", false)}, {"status", m.at("status")},
                    {"wall_time_s", m.at("wall_time_s")}};
      if (m.contains("time_us")) point["time_us"] = m["time_us"];
      task["points"].push_back(std::move(point));
    } catch (const json::exception& e) {
      ++skipped_lines;
      spdlog::warn("report: {} line {} skipped: {}", file.string(), number, e.what());
    }
  }
  return tasks;
}

json gather_report_data(const std::filesystem::path& workspace) {
  std::error_code ec;
  if (!std::filesystem::is_directory(workspace, ec))
    throw ExitError(exit_usage, "report: " + workspace.string() +
                                    " is not a directory; give a run's workspace, aoe_workspace/<model>_<timestamp>");
  const auto result_file = workspace / workspace_result_name;
  const auto log_file = workspace / "measurements.jsonl";
  const auto results_dir = workspace / "tunespace" / "result";
  const auto trace_file = find_ending(results_dir, "_gdat_trace.json");
  if (!std::filesystem::exists(result_file) && !std::filesystem::exists(log_file) && trace_file.empty())
    throw ExitError(exit_usage, "report: " + workspace.string() + " holds neither " + workspace_result_name +
                                    " nor measurements.jsonl; give a run's workspace, aoe_workspace/<model>_<timestamp>");

  json data = {{"workspace", std::filesystem::absolute(workspace).lexically_normal().string()}};
  // AOE's shape, a list of one-key sections: "basic", then the mode's.
  data["basic"] = json::object();
  data["mode"] = nullptr;
  if (std::filesystem::exists(result_file)) {
    const json result = read_json_file(result_file);
    if (!result.is_array())
      throw ExitError(exit_usage, "report: " + result_file.string() + " is not a result file (a list of sections)");
    for (const auto& section : result)
      if (section.is_object() && section.size() == 1) {
        const auto first = section.begin();  // items() would be a temporary: its key dangles
        const std::string name = first.key();
        const json& body = first.value();
        if (name == "basic") data["basic"] = body;
        else data["mode"] = name, data["section"] = body;
      }
  }
  size_t skipped = 0;
  data["tasks"] = std::filesystem::exists(log_file) ? read_measurements(log_file, skipped) : json::object();
  data["skipped_lines"] = skipped;
  if (!trace_file.empty()) data["gdat_trace"] = read_json_file(trace_file);
  data["bank"] = bank_counts(data["basic"].value("bank_path", std::string()));
  return data;
}

}  // namespace aoe::host
