// NVRTC compiles in forked worker processes, several at once: a compile that
// crashes NVRTC or hangs costs only its own candidate, and the tuner's next
// batch compiles while the GPU measures this one. The workers are forked by
// a single-threaded compile server that the pool forks once when it is made:
// a child forked while another thread holds a lock (the allocator's, the
// loader's) waits on it forever, so the caller, whose threads may, forks once
// rather than once per compile.
#pragma once

#include <cstdint>
#include <filesystem>
#include <future>
#include <map>
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
  // Jobs not yet started come back ok=false; running ones are waited for.
  ~CompilePool();
  CompilePool(const CompilePool&) = delete;
  CompilePool& operator=(const CompilePool&) = delete;

  // Returns at once; at most workers() compiles run at a time, in the order
  // submitted. get() refers into the future: keep the future while using it.
  std::shared_future<Compiled> submit(CompileJob job);
  unsigned workers() const { return workers_; }

 private:
  void read_results();
  void fail_pending(const std::string& why);

  unsigned workers_;
  int socket_ = -1;  // to the compile server: jobs out, results in
  int server_ = -1;  // its process id
  std::mutex send_mutex_;
  std::mutex mutex_;  // guards what follows
  std::map<uint64_t, std::promise<Compiled>> pending_;
  uint64_t next_id_ = 0;
  bool server_gone_ = false;
  std::thread reader_;
};

// The end of a compiler log, `keep` characters at most: enough to see the error in a message.
std::string log_tail(const std::string& log, size_t keep = 300);

// TE_PARALLEL_COMPILER when set (1 to 4096, else sdk::Error naming
// it); otherwise one per core but one, and at least one.
unsigned default_compile_workers();

}  // namespace aoe::cuda
