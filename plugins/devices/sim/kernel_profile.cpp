#include "kernel_profile.h"

#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>

#include "aoe/sdk/error.h"

namespace aoe::sim {
namespace {

using sdk::Error;
using sdk::StatusCode;

constexpr const char* kColumns[] = {"op_name", "op_type", "block_dim", "inputs", "outputs", "measured_us"};
// A dimension past this is not a tensor of any chip's memory: a typo.
constexpr int64_t kMaxDim = int64_t{1} << 40;

// RFC 4180 fields: commas inside double quotes, "" for a quote.
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        out.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else if (c != '\r') {
      out.back() += c;
    }
  }
  return out;
}

sdk::DType dtype_of(const std::string& name) {
  static const std::map<std::string, sdk::DType> names = {
      {"float16", sdk::DType::f16}, {"float", sdk::DType::f32},  {"float32", sdk::DType::f32},
      {"bfloat16", sdk::DType::bf16}, {"int8", sdk::DType::i8},  {"int16", sdk::DType::i16},
      {"int32", sdk::DType::i32},   {"int64", sdk::DType::i64},  {"uint8", sdk::DType::u8},
      {"uint16", sdk::DType::u16},  {"uint32", sdk::DType::u32}, {"uint64", sdk::DType::u64},
      {"bool", sdk::DType::boolean}, {"double", sdk::DType::f64}};
  const auto it = names.find(name);
  return it == names.end() ? sdk::DType::undefined : it->second;
}

// A column's whole value as a number `valid` accepts, else an error naming
// the row, the column and what it should hold.
template <class Parse, class Valid>
auto column_number(const std::string& where, const char* column, const std::string& text, const char* meaning, Parse parse,
                   Valid valid) {
  try {
    size_t used = 0;
    const auto v = parse(text, &used);
    if (used == text.size() && valid(v)) return v;
  } catch (const std::logic_error&) {
    // not a number, or out of range: as below
  }
  throw Error(StatusCode::invalid_argument,
              where + ": column '" + column + "' holds '" + text + "', not " + meaning);
}

std::vector<ProfiledTensor> tensors(const std::string& field) {
  std::vector<ProfiledTensor> out;
  if (field.empty()) return out;
  size_t start = 0;
  for (;;) {
    const size_t bar = field.find('|', start);
    out.push_back(parse_profiled_tensor(field.substr(start, bar == std::string::npos ? std::string::npos : bar - start)));
    if (bar == std::string::npos) return out;
    start = bar + 1;
  }
}

}  // namespace

ProfiledTensor parse_profiled_tensor(const std::string& text) {
  const size_t a = text.find(':');
  const size_t b = a == std::string::npos ? a : text.find(':', a + 1);
  if (b == std::string::npos)
    throw Error(StatusCode::invalid_argument, "tensor '" + text + "' is not format:dtype:shape");
  ProfiledTensor t;
  t.format = text.substr(0, a);
  t.dtype_name = text.substr(a + 1, b - a - 1);
  t.dtype = dtype_of(t.dtype_name);
  const std::string shape = text.substr(b + 1);
  size_t at = 0;
  while (at < shape.size()) {
    const size_t comma = std::min(shape.find(',', at), shape.size());
    int64_t d = 0;
    const char* first = shape.data() + at;
    const char* last = shape.data() + comma;
    const auto [ptr, ec] = std::from_chars(first, last, d);
    if (ec != std::errc() || ptr != last || d < 0 || d > kMaxDim)
      throw Error(StatusCode::invalid_argument,
                  "tensor '" + text + "': dimension '" + shape.substr(at, comma - at) + "' is not a size");
    t.dims.push_back(d);
    at = comma + 1;
  }
  return t;
}

std::vector<ProfiledKernel> read_kernel_profile(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw Error(StatusCode::io, "cannot open the kernel profile " + file.string());
  std::string line;
  if (!std::getline(in, line)) throw Error(StatusCode::invalid_argument, file.string() + " is empty: no header row");
  const auto header = csv_fields(line);
  std::map<std::string, size_t> column;
  for (size_t i = 0; i < header.size(); ++i) column[header[i]] = i;
  for (const char* c : kColumns)
    if (!column.count(c))
      throw Error(StatusCode::invalid_argument, file.string() + ": the header has no column '" + c +
                                                    "' (a profile has op_name, op_type, block_dim, inputs, outputs, measured_us)");
  std::vector<ProfiledKernel> out;
  for (int64_t number = 2; std::getline(in, line); ++number) {
    if (line.empty() || line == "\r") continue;
    const auto fields = csv_fields(line);
    const std::string where = file.string() + ":" + std::to_string(number);
    auto field = [&](const char* name) -> const std::string& {
      const size_t i = column.at(name);
      if (i >= fields.size()) throw Error(StatusCode::invalid_argument, where + ": no value in column '" + name + "'");
      return fields[i];
    };
    ProfiledKernel k;
    k.line = number;
    k.name = field("op_name");
    k.op_type = field("op_type");
    if (k.op_type.empty()) throw Error(StatusCode::invalid_argument, where + ": column 'op_type' is empty");
    k.block_dim = column_number(where, "block_dim", field("block_dim"), "a core count",
                                [](const std::string& text, size_t* used) { return std::stoll(text, used); },
                                [](long long v) { return v >= 0; });
    k.measured_us = column_number(where, "measured_us", field("measured_us"), "a time in microseconds",
                                  [](const std::string& text, size_t* used) { return std::stod(text, used); },
                                  [](double v) { return std::isfinite(v) && v >= 0; });
    for (const char* side : {"inputs", "outputs"}) {
      try {
        (side[0] == 'i' ? k.inputs : k.outputs) = tensors(field(side));
      } catch (const Error& e) {
        throw Error(StatusCode::invalid_argument, where + ": column '" + side + "': " + e.what());
      }
    }
    out.push_back(std::move(k));
  }
  return out;
}

}  // namespace aoe::sim
