// What `aoe-host report` shows, gathered from a run's workspace into one JSON
// object: the result file's copy, the measurements by task, GDAT's schedule
// trace and the bank's entry counts.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>

namespace aoe::host {

// The copy of the result file a tuning run keeps in its workspace.
inline constexpr const char* workspace_result_name = "aoe_result.json";

// Throws ExitError(exit_usage) naming the file when the workspace is not one,
// or a file in it is too large or unreadable. A measurements.jsonl line that
// does not parse (the last line of a run that crashed mid-write) is skipped
// and counted in "skipped_lines".
nlohmann::json gather_report_data(const std::filesystem::path& workspace);

// One task's measurements from measurements.jsonl: in the order measured,
// each {evaluation, seed, status, time_us (when ok), wall_time_s}.
nlohmann::json read_measurements(const std::filesystem::path& file, size_t& skipped_lines);

}  // namespace aoe::host
