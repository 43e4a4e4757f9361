// The device's side of its GPU worker (aoe-cuda-worker): started on first
// use, given the current task's arguments, asked to run candidates, killed
// when one overruns its time-out, and started afresh (with the task's
// arguments again) after it dies or loses its context.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include "worker_protocol.h"

namespace aoe::cuda {

struct WorkerSetup {
  std::filesystem::path executable;  // aoe-cuda-worker
  std::string driver;                // libcuda.so.1 to load there
  std::string nvrtc;                 // libnvrtc.so.*, loaded beside it
  std::string nvml;                  // libnvidia-ml.so.1, or empty
  int device_id = 0;
  double open_timeout_s = 120;       // a first cuInit on a large GPU takes seconds
};

class GpuWorker {
 public:
  // Starts the worker and opens the GPU; throws sdk::Error(not_found) with
  // what the worker said when it cannot.
  explicit GpuWorker(WorkerSetup setup);
  ~GpuWorker();
  GpuWorker(const GpuWorker&) = delete;
  GpuWorker& operator=(const GpuWorker&) = delete;

  // What the worker reported when it opened the GPU (gpu_session.h).
  const nlohmann::json& properties() const { return properties_; }

  // The reply to `request`, made after the frames that set `task` up (sent
  // again whenever the worker is new or served another task). A worker that
  // overruns `timeout_s` is killed: the reply is kind "timeout"; one that
  // dies: kind "died", with a message saying how.
  Frame call(uint64_t task, const std::vector<Frame>& setup, const Frame& request, double timeout_s);
  // Workers started so far, the first included.
  uint64_t starts() const { return starts_; }

 private:
  void start();
  void stop();
  std::string death();

  WorkerSetup setup_;
  nlohmann::json properties_;
  std::mutex mutex_;
  int pid_ = -1, to_worker_ = -1, from_worker_ = -1;
  uint64_t task_ = 0;  // the task whose arguments the worker holds; 0: none
  uint64_t starts_ = 0;
};

}  // namespace aoe::cuda
