#include "profile_csv.h"

#include <cmath>
#include <stdexcept>

#include "aoe/sdk/error.h"

namespace aoe::sim {
namespace {

using sdk::Error;
using sdk::StatusCode;

// The column's whole value as a number `valid` accepts, else an error naming
// the row, the column and what it should hold.
template <class Parse, class Valid>
auto column_number(const CsvRow& row, const std::string& column, const char* meaning, Parse parse, Valid valid) {
  const std::string text = trimmed(row[column]);
  try {
    size_t used = 0;
    const auto v = parse(text, &used);
    if (used == text.size() && valid(v)) return v;
  } catch (const std::logic_error&) {
    // not a number, or out of range: as below
  }
  throw Error(StatusCode::invalid_argument, row.where + ": column '" + column + "' holds '" + text + "', not " + meaning);
}

}  // namespace

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

std::vector<std::string> split_field(const std::string& field, char sep) {
  std::vector<std::string> out(1);
  for (char c : field) {
    if (c == sep)
      out.emplace_back();
    else
      out.back() += c;
  }
  return out;
}

std::string trimmed(const std::string& field) {
  const size_t first = field.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return field.substr(first, field.find_last_not_of(" \t") - first + 1);
}

CsvHeader::CsvHeader(const std::string& line) {
  const std::string bom = "\xEF\xBB\xBF";
  const auto names = csv_fields(line.compare(0, bom.size(), bom) == 0 ? line.substr(bom.size()) : line);
  for (size_t i = 0; i < names.size(); ++i) columns.emplace(trimmed(names[i]), i);
}

std::optional<std::string> CsvHeader::first_of(std::initializer_list<const char*> names) const {
  for (const char* n : names)
    if (columns.count(n)) return std::string(n);
  return std::nullopt;
}

const std::string& CsvRow::operator[](const std::string& column) const {
  const size_t i = header.columns.at(column);
  if (i >= fields.size()) throw Error(StatusCode::invalid_argument, where + ": no value in column '" + column + "'");
  return fields[i];
}

int64_t CsvRow::count(const std::string& column) const {
  return column_number(
      *this, column, "a core count", [](const std::string& text, size_t* used) { return std::stoll(text, used); },
      [](long long v) { return v >= 0; });
}

double CsvRow::microseconds(const std::string& column) const {
  return column_number(
      *this, column, "a time in microseconds", [](const std::string& text, size_t* used) { return std::stod(text, used); },
      [](double v) { return std::isfinite(v) && v >= 0; });
}

}  // namespace aoe::sim
