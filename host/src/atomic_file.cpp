#include "atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>

#include "aoe/sdk/error.h"

namespace aoe::host {

bool write_all(int fd, const std::string& content) {
  size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    written += static_cast<size_t>(n);
  }
  return true;
}

void write_atomically(const std::filesystem::path& file, const std::string& content, bool flush) {
  static std::atomic<unsigned> counter{0};
  const auto tmp = file.parent_path() /
                   ("." + file.filename().string() + ".tmp" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw aoe::sdk::Error(aoe::sdk::StatusCode::io, "cannot write " + tmp.string());
  const bool ok = write_all(fd, content) && (!flush || ::fsync(fd) == 0);
  ::close(fd);
  if (!ok || std::rename(tmp.c_str(), file.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw aoe::sdk::Error(aoe::sdk::StatusCode::io, "cannot write " + file.string());
  }
}

}  // namespace aoe::host
