// Writing a file so readers see the old content or the new, never half.
#pragma once

#include <filesystem>
#include <string>

namespace aoe::host {

// Writes a temporary beside the target, flushes it to disk, renames it over.
void write_atomically(const std::filesystem::path& file, const std::string& content);

}  // namespace aoe::host
