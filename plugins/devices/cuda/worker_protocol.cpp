#include "worker_protocol.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

namespace aoe::cuda {
namespace {

using Clock = std::chrono::steady_clock;

bool write_all(int fd, const char* p, size_t left) {
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    left -= static_cast<size_t>(n);
  }
  return true;
}

// Waits for `fd` to be readable until `deadline` (none: forever).
ReadResult wait_readable(int fd, const Clock::time_point* deadline) {
  for (;;) {
    int wait_ms = -1;
    if (deadline) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - Clock::now()).count();
      if (left <= 0) return ReadResult::overran;
      wait_ms = static_cast<int>(std::min<long long>(left, 60 * 1000));
    }
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, wait_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) return ReadResult::broken;
    if (ready > 0) return ReadResult::frame;
  }
}

ReadResult read_all(int fd, char* p, size_t size, const Clock::time_point* deadline) {
  size_t got = 0;
  while (got < size) {
    const ReadResult ready = wait_readable(fd, deadline);
    if (ready != ReadResult::frame) return ready;
    const ssize_t n = ::read(fd, p + got, size - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ReadResult::broken;
    if (n == 0) return got == 0 ? ReadResult::closed : ReadResult::broken;
    got += static_cast<size_t>(n);
  }
  return ReadResult::frame;
}

struct Lengths {
  uint64_t kind = 0, header = 0, blob = 0;
};

ReadResult read_frame_until(int fd, const Clock::time_point* deadline, Frame& frame) {
  Lengths lengths;
  ReadResult r = read_all(fd, reinterpret_cast<char*>(&lengths), sizeof lengths, deadline);
  if (r != ReadResult::frame) return r;
  if (lengths.kind > 256 || lengths.header > kMaxFrameBytes || lengths.blob > kMaxFrameBytes) return ReadResult::broken;
  std::string kind(lengths.kind, '\0'), header(lengths.header, '\0');
  frame.blob.assign(lengths.blob, '\0');
  for (auto* part : {&kind, &header, &frame.blob}) {
    // After the lengths the rest follows at once; a deadline still bounds a stalled peer.
    r = read_all(fd, part->data(), part->size(), deadline);
    if (r != ReadResult::frame) return r == ReadResult::closed ? ReadResult::broken : r;
  }
  frame.kind = std::move(kind);
  frame.header = nlohmann::json::parse(header, nullptr, false);
  return frame.header.is_discarded() ? ReadResult::broken : ReadResult::frame;
}

}  // namespace

bool write_frame(int fd, const Frame& frame) {
  const std::string header = frame.header.dump();
  const Lengths lengths{frame.kind.size(), header.size(), frame.blob.size()};
  return write_all(fd, reinterpret_cast<const char*>(&lengths), sizeof lengths) &&
         write_all(fd, frame.kind.data(), frame.kind.size()) && write_all(fd, header.data(), header.size()) &&
         write_all(fd, frame.blob.data(), frame.blob.size());
}

ReadResult read_frame(int fd, Clock::time_point deadline, Frame& frame) { return read_frame_until(fd, &deadline, frame); }

ReadResult read_frame(int fd, Frame& frame) { return read_frame_until(fd, nullptr, frame); }

}  // namespace aoe::cuda
