// Writing a file so readers see the old content or the new, never half, and
// a crash or power loss after the call returns keeps the new: the one
// atomic write of the host, the modes and the tools.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

#include "aoe/sdk/error.h"

namespace aoe::sdk {

// Writes all of content to fd, again after a signal interrupts; false on an error or a full disk.
inline bool write_all(int fd, const std::string& content) {
  size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    written += static_cast<size_t>(n);
  }
  return true;
}

// fsync, again after a signal interrupts.
inline bool sync_fd(int fd) {
  int r;
  while ((r = ::fsync(fd)) != 0 && errno == EINTR) {
  }
  return r == 0;
}

// Flushes a directory's entries (a rename in it) to disk.
inline bool sync_directory(const std::filesystem::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = sync_fd(fd);
  ::close(fd);
  return ok;
}

// A name beside file for its next content, unique in this process and among processes.
inline std::filesystem::path temporary_beside(const std::filesystem::path& file) {
  static std::atomic<unsigned> counter{0};
  const auto dir = file.parent_path().empty() ? std::filesystem::path(".") : file.parent_path();
  return dir / ("." + file.filename().string() + ".tmp" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
}

// Writes a temporary beside the target, flushes it to disk, renames it over,
// then flushes the directory so the rename itself survives a crash.
// flush false leaves the flushing to the caller: one syncfs for a batch.
inline void write_atomically(const std::filesystem::path& file, const std::string& content, bool flush = true) {
  const auto tmp = temporary_beside(file);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw Error(StatusCode::io, "cannot write " + tmp.string() + ": " + std::strerror(errno));
  const bool ok = write_all(fd, content) && (!flush || sync_fd(fd));
  ::close(fd);
  if (!ok || std::rename(tmp.c_str(), file.c_str()) != 0) {
    const int why = errno;
    std::remove(tmp.c_str());
    throw Error(StatusCode::io, "cannot write " + file.string() + ": " + std::strerror(why));
  }
  if (flush && !sync_directory(tmp.parent_path()))
    throw Error(StatusCode::io, "cannot flush the directory of " + file.string() + ": " + std::strerror(errno));
}

}  // namespace aoe::sdk
