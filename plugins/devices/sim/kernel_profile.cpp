#include "kernel_profile.h"

#include <charconv>
#include <fstream>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>

#include "aoe/sdk/error.h"
#include "op_model.h"
#include "mindspore_dtypes.h"
#include "mindspore_profile.h"
#include "op_summary_profile.h"
#include "profile_csv.h"

namespace aoe::sim {
namespace {

using sdk::Error;
using sdk::StatusCode;

constexpr const char* kColumns[] = {"op_name", "op_type", "block_dim", "inputs", "outputs", "measured_us"};

std::vector<ProfiledTensor> tensors(const std::string& field) {
  std::vector<ProfiledTensor> out;
  if (field.empty()) return out;
  for (const auto& text : split_field(field, '|')) out.push_back(parse_profiled_tensor(text));
  return out;
}

bool is_compact(const CsvHeader& header) {
  for (const char* c : kColumns)
    if (!header.columns.count(c)) return false;
  return true;
}

ProfiledKernel compact_kernel(const CsvRow& row) {
  ProfiledKernel k;
  k.name = row["op_name"];
  k.op_type = row["op_type"];
  if (k.op_type.empty()) throw Error(StatusCode::invalid_argument, row.where + ": column 'op_type' is empty");
  k.block_dim = row.count("block_dim");
  k.measured_us = row.microseconds("measured_us");
  for (const char* side : {"inputs", "outputs"}) {
    try {
      (side[0] == 'i' ? k.inputs : k.outputs) = tensors(row[side]);
    } catch (const Error& e) {
      throw Error(StatusCode::invalid_argument, row.where + ": column '" + side + "': " + e.what());
    }
  }
  return k;
}

}  // namespace

sdk::DType profiled_dtype(const std::string& name) {
  static const std::map<std::string, sdk::DType> names = {
      {"float16", sdk::DType::f16}, {"float", sdk::DType::f32},  {"float32", sdk::DType::f32},
      {"bfloat16", sdk::DType::bf16}, {"int8", sdk::DType::i8},  {"int16", sdk::DType::i16},
      {"int32", sdk::DType::i32},   {"int64", sdk::DType::i64},  {"uint8", sdk::DType::u8},
      {"uint16", sdk::DType::u16},  {"uint32", sdk::DType::u32}, {"uint64", sdk::DType::u64},
      {"bool", sdk::DType::boolean}, {"double", sdk::DType::f64}};
  const auto it = names.find(name);
  return it == names.end() ? sdk::DType::undefined : it->second;
}

std::vector<int64_t> parse_dims(const std::string& shape, const std::string& tensor) {
  std::vector<int64_t> dims;
  size_t at = 0;
  while (at < shape.size()) {
    const size_t comma = std::min(shape.find(',', at), shape.size());
    int64_t d = 0;
    const char* first = shape.data() + at;
    const char* last = shape.data() + comma;
    const auto [ptr, ec] = std::from_chars(first, last, d);
    if (ec != std::errc() || ptr != last || d < 0 || d > kMaxTensorElements)
      throw Error(StatusCode::invalid_argument,
                  "tensor '" + tensor + "': dimension '" + shape.substr(at, comma - at) + "' is not a size");
    dims.push_back(d);
    at = comma + 1;
  }
  // A tensor no chip's memory holds is a typo (op_model refuses it too).
  if (!within_any_memory(dims))
    throw Error(StatusCode::invalid_argument,
                "tensor '" + tensor + "': more than 2^40 elements, not a tensor of any chip's memory");
  return dims;
}

ProfiledTensor parse_profiled_tensor(const std::string& text) {
  const size_t a = text.find(':');
  const size_t b = a == std::string::npos ? a : text.find(':', a + 1);
  if (b == std::string::npos)
    throw Error(StatusCode::invalid_argument, "tensor '" + text + "' is not format:dtype:shape");
  ProfiledTensor t;
  t.format = text.substr(0, a);
  t.dtype_name = text.substr(a + 1, b - a - 1);
  t.dtype = profiled_dtype(t.dtype_name);
  t.dims = parse_dims(text.substr(b + 1), text);
  return t;
}

KernelProfile read_kernel_profile(const std::filesystem::path& file, DtypeLabels labels) {
  std::ifstream in(file);
  if (!in) throw Error(StatusCode::io, "cannot open the kernel profile " + file.string());
  std::string line;
  if (!std::getline(in, line)) throw Error(StatusCode::invalid_argument, file.string() + " is empty: no header row");
  const CsvHeader header(line);
  const bool compact = is_compact(header);
  std::optional<OpSummaryColumns> summary;
  std::optional<MindSporeKernels> mindspore;
  if (!compact) summary = OpSummaryColumns::of(header);
  if (!compact && !summary && MindSporeKernels::is_framework_raw(header)) mindspore.emplace(file);
  if (!compact && !summary && !mindspore)
    throw Error(StatusCode::invalid_argument,
                file.string() +
                    ": the header is neither a compact profile's (op_name, op_type, block_dim, inputs, outputs, "
                    "measured_us) nor CANN's profiler's op_summary (Op Name, OP Type, Block Dim, Input Shapes, Input "
                    "Data Types, Input Formats, Output Shapes, Output Data Types, Output Formats, Task Duration(us)) "
                    "nor MindSpore's framework_raw (task_id, block_dim, full_op_name, op_name, op_type, op_info)");
  KernelProfile out;
  for (int64_t number = 2; std::getline(in, line); ++number) {
    if (trimmed(line).empty() || line == "\r") continue;
    const CsvRow row{header, csv_fields(line), file.string() + ":" + std::to_string(number)};
    std::optional<ProfiledKernel> k;
    if (compact) {
      k = compact_kernel(row);
      ++out.time_columns["measured_us"];
    } else if (summary) {
      k = summary->kernel(row, out);
    } else {
      k = mindspore->kernel(row, out);
    }
    if (!k) continue;
    k->line = number;
    out.kernels.push_back(std::move(*k));
  }
  // CANN's own profiler spells its types DT_*, from no shifted table.
  if (labels == DtypeLabels::detect && !summary) {
    if (const auto telltale = shifted_mindspore_label(out, mindspore.has_value())) {
      read_labels_one_type_on(out);
      out.labels_shifted_by = *telltale;
    }
  }
  if (out.kernels.empty()) {
    std::string skipped;
    for (const auto& [type, rows] : out.skipped) skipped += (skipped.empty() ? "" : ", ") + type + " " + std::to_string(rows);
    throw Error(StatusCode::invalid_argument, file.string() + ": no AI-core kernel row after the header" +
                                                  (skipped.empty() ? std::string() : " (rows run elsewhere: " + skipped + ")"));
  }
  return out;
}

}  // namespace aoe::sim
