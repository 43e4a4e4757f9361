// NVRTC compiles in forked worker processes, several at once: a compile that
// crashes NVRTC or hangs costs only its own candidate, and the tuner's next
// batch compiles while the GPU measures this one.
#pragma once

#include <condition_variable>
#include <deque>
#include <filesystem>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace aoe::cuda {

struct CompileJob {
  std::string source;
  std::string program_name;
  std::vector<std::string> options;  // the caller's, --gpu-architecture=sm_XY among them
  // A name expression (nvrtcAddNameExpression), so extern "C" and templated kernels both resolve.
  std::string kernel_name;
};

struct Compiled {
  bool ok = false;
  std::string cubin;
  std::string lowered_name;  // what cuModuleGetFunction takes
  std::string log;           // NVRTC's log, or why the worker gave none
  double compile_ms = 0;
};

class CompilePool {
 public:
  // The library is opened in each worker process, never in the caller, so a
  // broken NVRTC cannot take the tuner down with it.
  CompilePool(std::filesystem::path nvrtc_library, unsigned workers, double timeout_s);
  // Jobs still queued come back ok=false; running ones are waited for.
  ~CompilePool();
  CompilePool(const CompilePool&) = delete;
  CompilePool& operator=(const CompilePool&) = delete;

  // Returns at once; at most workers() compiles run at a time, in the order submitted.
  std::shared_future<Compiled> submit(CompileJob job);
  unsigned workers() const { return static_cast<unsigned>(threads_.size()); }

 private:
  struct Pending {
    CompileJob job;
    std::promise<Compiled> promise;
  };
  void serve();

  std::filesystem::path nvrtc_library_;
  double timeout_s_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Pending> queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

// TE_PARALLEL_COMPILER when set (a positive integer, else sdk::Error naming
// it); otherwise one per core but one, and at least one.
unsigned default_compile_workers();

}  // namespace aoe::cuda
