// The CSV a kernel profile comes in: RFC 4180 fields, a header naming the
// columns, and the checked numbers a row holds.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace aoe::sim {

// One line's fields: commas inside double quotes, "" for a quote, a
// trailing carriage return dropped.
std::vector<std::string> csv_fields(const std::string& line);

// A field's parts between `sep`s, one (empty) for an empty field: the
// tensors a field lists ('|' in compact profiles, ';' in CANN's own).
std::vector<std::string> split_field(const std::string& field, char sep);

// A field without the spaces and tabs around it (CANN's profiler writes a
// leading tab into some fields so spreadsheets keep them as text).
std::string trimmed(const std::string& field);

// The header row: each column's index by its trimmed name, a UTF-8
// byte-order mark (a spreadsheet's export) dropped.
struct CsvHeader {
  std::map<std::string, size_t> columns;
  explicit CsvHeader(const std::string& line);
  // The first of `names` the header has.
  std::optional<std::string> first_of(std::initializer_list<const char*> names) const;
};

// A row's fields by column name, errors naming `where` (file:line).
struct CsvRow {
  const CsvHeader& header;
  std::vector<std::string> fields;
  std::string where;
  const std::string& operator[](const std::string& column) const;
  // The column as a core count or a time in microseconds, or an error
  // naming the row, the column and the text.
  int64_t count(const std::string& column) const;
  double microseconds(const std::string& column) const;
};

}  // namespace aoe::sim
