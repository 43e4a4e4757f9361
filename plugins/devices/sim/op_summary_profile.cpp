#include "op_summary_profile.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <vector>

#include "aoe/sdk/error.h"

namespace aoe::sim {
namespace {

using sdk::Error;
using sdk::StatusCode;

std::string upper(const std::string& s) {
  std::string out = trimmed(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return out;
}

std::string lower(const std::string& s) {
  std::string out = s;
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string without_prefix(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0 ? s.substr(prefix.size()) : s;
}

// Task types that run on AI cores: their time is what a profile scores.
bool on_ai_cores(const std::string& task_type) {
  for (const char* t : {"AI_CORE", "AI_VECTOR_CORE", "MIX_AIC", "MIX_AIV"})
    if (task_type == t) return true;
  return false;
}

bool not_available(const std::string& text) {
  const std::string t = upper(text);
  return t.empty() || t == "N/A" || t == "NA";
}

// One side's tensors (`side` Input or Output), zipped from its three
// `;`-separated columns; the dtypes say how many there are (a scalar's
// shape is empty).
std::vector<ProfiledTensor> side_tensors(const CsvRow& row, const std::string& side) {
  const std::string shapes_column = side + " Shapes", dtypes_column = side + " Data Types", formats_column = side + " Formats";
  std::vector<ProfiledTensor> out;
  if (not_available(row[dtypes_column])) return out;
  const auto dtypes = split_field(row[dtypes_column], ';');
  const auto shapes = split_field(row[shapes_column], ';');
  const auto formats = split_field(row[formats_column], ';');
  if (shapes.size() != dtypes.size() || formats.size() != dtypes.size())
    throw Error(StatusCode::invalid_argument, row.where + ": columns '" + shapes_column + "', '" + dtypes_column + "' and '" +
                                                  formats_column + "' list " + std::to_string(shapes.size()) + ", " +
                                                  std::to_string(dtypes.size()) + " and " + std::to_string(formats.size()) +
                                                  " tensors; they list one each");
  for (size_t i = 0; i < dtypes.size(); ++i) {
    ProfiledTensor t;
    t.format = compact_format_name(formats[i]);
    t.dtype_name = compact_dtype_name(dtypes[i]);
    t.dtype = profiled_dtype(t.dtype_name);
    std::string shape = trimmed(shapes[i]);
    if (shape.size() >= 2 && shape.front() == '[' && shape.back() == ']') shape = shape.substr(1, shape.size() - 2);
    try {
      t.dims = parse_dims(shape, shape);
    } catch (const Error& e) {
      throw Error(StatusCode::invalid_argument, row.where + ": column '" + shapes_column + "': " + e.what());
    }
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace

std::string compact_dtype_name(const std::string& cann) {
  static const std::map<std::string, std::string> names = {
      {"FLOAT16", "float16"}, {"F16", "float16"},     {"FP16", "float16"},    {"HALF", "float16"},
      {"FLOAT", "float"},     {"FLOAT32", "float"},   {"F32", "float"},       {"FP32", "float"},
      {"BF16", "bfloat16"},   {"BFLOAT16", "bfloat16"}, {"DOUBLE", "double"}, {"FLOAT64", "double"},
      {"F64", "double"},      {"FP64", "double"}};
  const std::string name = without_prefix(upper(cann), "DT_");
  const auto it = names.find(name);
  return it == names.end() ? lower(name) : it->second;
}

std::string compact_format_name(const std::string& cann) {
  const std::string name = without_prefix(upper(cann), "FORMAT_");
  return name == "FRACTAL_Z" ? "FracZ" : name;
}

std::optional<OpSummaryColumns> OpSummaryColumns::of(const CsvHeader& header) {
  const auto name = header.first_of({"Op Name", "Name"});
  const auto type = header.first_of({"OP Type", "Op Type", "Type"});
  const auto block_dim = header.first_of({"Block Dim"});
  const auto duration = header.first_of({"Task Duration(us)", "Duration(us)"});
  if (!name || !type || !block_dim || !duration) return std::nullopt;
  for (const char* side : {"Input", "Output"})
    for (const char* what : {" Shapes", " Data Types", " Formats"})
      if (!header.columns.count(std::string(side) + what)) return std::nullopt;
  OpSummaryColumns c;
  c.name_ = *name;
  c.type_ = *type;
  c.block_dim_ = *block_dim;
  c.duration_ = *duration;
  c.task_type_ = header.first_of({"Task Type", "Accelerator Core"});
  c.aicore_time_ = header.first_of({"aicore_time(us)"});
  return c;
}

std::optional<ProfiledKernel> OpSummaryColumns::kernel(const CsvRow& row, KernelProfile& profile) const {
  if (task_type_) {
    const std::string task = upper(row[*task_type_]);
    if (!on_ai_cores(task)) {
      ++profile.skipped[task.empty() ? "(no task type)" : task];
      return std::nullopt;
    }
  }
  ProfiledKernel k;
  k.name = trimmed(row[name_]);
  k.op_type = trimmed(row[type_]);
  if (not_available(k.op_type)) throw Error(StatusCode::invalid_argument, row.where + ": column '" + type_ + "' names no op type");
  k.block_dim = not_available(row[block_dim_]) ? 0 : row.count(block_dim_);
  const bool own_time = aicore_time_ && !not_available(row[*aicore_time_]);
  const std::string& time_column = own_time ? *aicore_time_ : duration_;
  k.measured_us = row.microseconds(time_column);
  ++profile.time_columns[time_column];
  k.inputs = side_tensors(row, "Input");
  k.outputs = side_tensors(row, "Output");
  return k;
}

}  // namespace aoe::sim
