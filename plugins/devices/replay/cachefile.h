// A Kernel Tuner cachefile: every configuration of one kernel measured on
// one GPU, with its time or the way it failed and what measuring it cost.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "json_file.h"

namespace aoe::replay {

// Kernel Tuner writes a failure as a string in place of the time.
enum class Outcome { timed, compile_failed, runtime_failed, invalid };

const char* to_string(Outcome outcome);

struct Record {
  std::string key;                     // the cache key: the values joined with commas
  std::vector<nlohmann::json> values;  // one per tune_params_keys entry, in that order
  Outcome outcome = Outcome::timed;
  double time_ms = 0;                  // the mean of times_ms, when timed
  std::vector<double> times_ms;        // the repeats, when timed
  // What measuring it took, in ms; fields the file lacks are 0.
  double compile_ms = 0, benchmark_ms = 0, framework_ms = 0, verification_ms = 0;

  // The tuner's time spent on this config; strategy_time is the searcher's, not the device's.
  double cost_ms() const { return compile_ms + benchmark_ms + framework_ms + verification_ms; }
};

struct Cachefile {
  std::filesystem::path path;
  std::string device_name;
  std::string kernel_name;
  nlohmann::json problem_size;
  std::string objective;
  std::vector<std::string> keys;                     // tune_params_keys
  std::vector<std::vector<nlohmann::json>> domains;  // tune_params, per key
  std::vector<Record> records;                       // in the file's order
  bool left_open = false;  // as Kernel Tuner leaves it while it tunes, or when tuning was interrupted
};

// Reads a .json or .json.gz cachefile, of at most max_bytes once inflated;
// every error names the file, and the entry at fault when there is one. A
// file whose device_name is empty or missing (some of benchmark_hub's are)
// is named by device_name_from_file(), empty where that finds none. Each
// entry's key must name the values it records, as Kernel Tuner writes it;
// schema_version, where given, must be 1.x. Kernel Tuner appends each entry to
// the cache as it measures it and closes the file ("}\n}") only when tuning
// ends; one left open (tuning still running, or interrupted) is read as
// Kernel Tuner reads it, closed after its last whole entry (left_open).
Cachefile read_cachefile(const std::filesystem::path& file, uint64_t max_bytes = kDefaultMaxBytes);

// The device a cachefile's name says it was recorded on, benchmark_hub's
// <kernel>_<device>.json[.gz]: "convolution_milo_A100.json.gz" -> "A100"
// (the whole stem when it has no '_'); empty where that part names no
// number, as a GPU's model does ("t4_cache.json" names no device).
std::string device_name_from_file(const std::filesystem::path& file);

}  // namespace aoe::replay
