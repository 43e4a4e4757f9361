// A fuzz input as the file a reader opens: each target reads files, as the
// host does, so the bytes go to a file of this process's own scratch folder.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

namespace aoe::fuzz {

// Made on first use, removed as the process exits.
inline const std::filesystem::path& scratch_dir() {
  struct Scratch {
    std::filesystem::path dir = std::filesystem::temp_directory_path() / ("aoe_fuzz_" + std::to_string(getpid()));
    Scratch() { std::filesystem::create_directories(dir); }
    ~Scratch() {
      std::error_code ignored;
      std::filesystem::remove_all(dir, ignored);
    }
  };
  static const Scratch scratch;
  return scratch.dir;
}

// The bytes written to `name` under the scratch folder (subfolders made), replacing what was there.
inline std::filesystem::path write_file(const std::string& name, const uint8_t* data, size_t size) {
  const auto path = scratch_dir() / name;
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path;
}

}  // namespace aoe::fuzz
