// Reads a JSON document from a plain or gzip-compressed file.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>

namespace aoe::replay {

// The most bytes a file is read or inflated to: well above the largest real
// Kernel Tuner space, well below what a gzip bomb inflates to.
inline constexpr uint64_t kDefaultMaxBytes = uint64_t{1} << 30;

// The file's bytes, inflated when they start with the gzip magic (whatever
// the file is called). Throws sdk::Error(io) naming the file when it cannot
// be read, and (invalid_argument) when it is truncated or corrupt, or holds
// or inflates to more than max_bytes.
std::string read_maybe_gzip(const std::filesystem::path& file, uint64_t max_bytes = kDefaultMaxBytes);

// read_maybe_gzip, parsed keeping the file's key order; a parse error names
// the file.
nlohmann::ordered_json read_json_file(const std::filesystem::path& file, uint64_t max_bytes = kDefaultMaxBytes);

// `text`, read from `file`, parsed keeping its key order; a parse error names the file.
nlohmann::ordered_json parse_json_text(const std::filesystem::path& file, const std::string& text);

// A reader of one input file, whose every complaint names the kind of file
// and its path first: "cachefile a.json has no \"cache\"".
class FileReader {
 public:
  FileReader(std::string kind, std::filesystem::path file) : kind_(std::move(kind)), file_(std::move(file)) {}

 protected:
  // Throws sdk::Error(invalid_argument): "<kind> <file> <why>".
  [[noreturn]] void fail(const std::string& why) const;

  std::string kind_;
  std::filesystem::path file_;
};

}  // namespace aoe::replay
