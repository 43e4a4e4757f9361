// Reads a JSON document from a plain or gzip-compressed file.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

namespace aoe::replay {

// The file's bytes, inflated when they start with the gzip magic (whatever
// the file is called). Throws sdk::Error(io) naming the file when it cannot
// be read, and (invalid_argument) when it is truncated or corrupt.
std::string read_maybe_gzip(const std::filesystem::path& file);

// read_maybe_gzip, parsed keeping the file's key order; a parse error names
// the file.
nlohmann::ordered_json read_json_file(const std::filesystem::path& file);

}  // namespace aoe::replay
