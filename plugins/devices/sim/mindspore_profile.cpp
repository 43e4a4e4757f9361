#include "mindspore_profile.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <vector>

#include "aoe/sdk/error.h"
#include "op_summary_profile.h"

namespace aoe::sim {
namespace {

namespace fs = std::filesystem;
using sdk::Error;
using sdk::StatusCode;

// The detail file that times `raw`'s rows.
fs::path times_file_for(const fs::path& raw) {
  // Compiled when a MindSpore profile is read, not when the plugin loads.
  static const std::regex kFrameworkRawName("framework_raw_([0-9]+)\\.csv");
  static const std::regex kAicoreDetailName("aicore_intermediate_([0-9]+)_detail\\.csv");
  std::smatch m;
  const std::string name = raw.filename().string();
  const fs::path dir = raw.has_parent_path() ? raw.parent_path() : fs::path(".");
  if (std::regex_match(name, m, kFrameworkRawName)) {
    const fs::path detail = dir / ("aicore_intermediate_" + m[1].str() + "_detail.csv");
    if (!fs::exists(detail))
      throw Error(StatusCode::invalid_argument, raw.string() + " is MindSpore's framework_raw, whose rows carry no time: " +
                                                    detail.string() + ", which times them, is missing");
    return detail;
  }
  std::vector<fs::path> found;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string n = entry.path().filename().string();
    if (std::regex_match(n, kAicoreDetailName)) found.push_back(entry.path());
  }
  if (found.size() == 1) return found.front();
  std::string listed;
  for (const auto& f : found) listed += (listed.empty() ? "" : ", ") + f.filename().string();
  throw Error(StatusCode::invalid_argument,
              raw.string() + " is MindSpore's framework_raw, whose rows carry no time: " +
                  (found.empty() ? "put the aicore_intermediate_<N>_detail.csv that times them beside it"
                                 : "of " + listed + " beside it, name it framework_raw_<N>.csv to take its N's"));
}

// MindSpore's NUMBER_TYPE_FLOAT16 as a compact profile spells it: float16.
// FLOAT32 stays float32: a bare float is MindSpore's generic type, which
// shows a shifted type table (mindspore_dtypes.h).
std::string mindspore_dtype_name(const std::string& mindspore) {
  const std::string prefix = "NUMBER_TYPE_";
  const std::string name = mindspore.compare(0, prefix.size(), prefix) == 0 ? mindspore.substr(prefix.size()) : mindspore;
  return name == "FLOAT32" ? "float32" : compact_dtype_name(name);
}

// op_info's `side`_0, `side`_1, ... in order, until one is missing.
std::vector<ProfiledTensor> op_info_tensors(const nlohmann::json& info, const std::string& side, const std::string& where) {
  std::vector<ProfiledTensor> out;
  for (size_t i = 0;; ++i) {
    const std::string key = side + "_" + std::to_string(i);
    if (!info.contains(key)) break;
    const auto& t = info[key];
    if (!t.is_object() || !t.contains("format") || !t.contains("data_type") || !t.contains("shape") ||
        !t["format"].is_string() || !t["data_type"].is_string() || !t["shape"].is_string())
      throw Error(StatusCode::invalid_argument,
                  where + ": column 'op_info': " + key + " is not {\"format\", \"data_type\", \"shape\"} as strings");
    ProfiledTensor p;
    p.format = t["format"].get<std::string>();
    p.dtype_name = mindspore_dtype_name(t["data_type"].get<std::string>());
    p.dtype = profiled_dtype(p.dtype_name);
    try {
      p.dims = parse_dims(t["shape"].get<std::string>(), key);
    } catch (const Error& e) {
      throw Error(StatusCode::invalid_argument, where + ": column 'op_info': " + e.what());
    }
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace

bool MindSporeKernels::is_framework_raw(const CsvHeader& header) {
  for (const char* c : {"task_id", "block_dim", "full_op_name", "op_name", "op_type", "op_info"})
    if (!header.columns.count(c)) return false;
  return true;
}

MindSporeKernels::MindSporeKernels(const fs::path& framework_raw) : times_file_(times_file_for(framework_raw)) {
  std::ifstream in(times_file_);
  if (!in) throw Error(StatusCode::io, "cannot open " + times_file_.string());
  std::string line;
  if (!std::getline(in, line)) throw Error(StatusCode::invalid_argument, times_file_.string() + " is empty: no header row");
  const CsvHeader header(line);
  for (const char* c : {"full_op_name", "execution_time"})
    if (!header.columns.count(c))
      throw Error(StatusCode::invalid_argument, times_file_.string() + ": the header has no column '" + c +
                                                    "' (MindSpore's AI-core detail: full_op_name, execution_time)");
  for (int64_t number = 2; std::getline(in, line); ++number) {
    if (trimmed(line).empty()) continue;
    const CsvRow row{header, csv_fields(line), times_file_.string() + ":" + std::to_string(number)};
    times_us_[trimmed(row["full_op_name"])] = row.microseconds("execution_time") * 1e3;  // written in ms
  }
}

std::optional<ProfiledKernel> MindSporeKernels::kernel(const CsvRow& row, KernelProfile& profile) const {
  const auto time = times_us_.find(trimmed(row["full_op_name"]));
  if (time == times_us_.end()) {
    ++profile.skipped["not in " + times_file_.filename().string()];
    return std::nullopt;
  }
  ProfiledKernel k;
  k.name = trimmed(row["op_name"]);
  k.op_type = trimmed(row["op_type"]);
  if (k.op_type.empty()) throw Error(StatusCode::invalid_argument, row.where + ": column 'op_type' is empty");
  k.block_dim = row.count("block_dim");
  k.measured_us = time->second;
  nlohmann::json info = nlohmann::json::object();  // an empty op_info lists no tensors
  try {
    if (!trimmed(row["op_info"]).empty()) info = nlohmann::json::parse(row["op_info"]);
  } catch (const nlohmann::json::exception& e) {
    throw Error(StatusCode::invalid_argument, row.where + ": column 'op_info' is not JSON: " + e.what());
  }
  if (!info.is_object()) throw Error(StatusCode::invalid_argument, row.where + ": column 'op_info' is not a JSON object");
  k.inputs = op_info_tensors(info, "input", row.where);
  k.outputs = op_info_tensors(info, "output", row.where);
  ++profile.time_columns[times_file_.filename().string() + " execution_time"];
  return k;
}

}  // namespace aoe::sim
