// Writing a file so readers see the old content or the new, never half.
#pragma once

#include <filesystem>
#include <string>

namespace aoe::host {

// Writes all of content to fd, again after a signal interrupts; false on an error or a full disk.
bool write_all(int fd, const std::string& content);

// Writes a temporary beside the target, flushes it to disk, renames it over.
// flush false leaves the flushing to the caller: one syncfs for a batch.
void write_atomically(const std::filesystem::path& file, const std::string& content, bool flush = true);

}  // namespace aoe::host
