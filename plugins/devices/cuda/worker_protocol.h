// How the cuda device and its GPU worker process talk: frames over pipes,
// each a kind, a JSON header and a binary blob (a cubin, a buffer's bytes).
// The worker is a separate executable so that the CUDA driver is only ever
// initialised there: a candidate that loses the context (an illegal
// address) or never returns costs a worker, never aoe-host.
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <string>

namespace aoe::cuda {

struct Frame {
  std::string kind;
  nlohmann::json header = nlohmann::json::object();
  std::string blob;
};

// Largest header or blob either side accepts: a frame claiming more is a
// broken peer, not an allocation to make.
inline constexpr uint64_t kMaxFrameBytes = uint64_t{8} << 30;

// False when the other end is gone.
bool write_frame(int fd, const Frame& frame);

enum class ReadResult { frame, closed, overran, broken };
// Waits until `deadline` for a whole frame.
ReadResult read_frame(int fd, std::chrono::steady_clock::time_point deadline, Frame& frame);
// Waits as long as it takes (the worker's side: the device decides when to give up).
ReadResult read_frame(int fd, Frame& frame);

}  // namespace aoe::cuda
