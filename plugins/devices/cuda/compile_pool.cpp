#include "compile_pool.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "aoe/sdk/error.h"
#include "cuda_api.h"

namespace aoe::cuda {
namespace {

using Clock = std::chrono::steady_clock;

// What a worker writes before the bytes of the cubin, the lowered name and the log.
struct Header {
  uint32_t ok = 0;
  double compile_ms = 0;
  uint64_t cubin_bytes = 0, lowered_bytes = 0, log_bytes = 0;
};

void write_all(int fd, const void* data, size_t bytes) {
  const char* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t n = write(fd, p, bytes);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) _exit(3);  // the parent is gone
    p += n;
    bytes -= static_cast<size_t>(n);
  }
}

// The worker inherited every descriptor the caller had open, other workers'
// pipes among them: holding those would keep their reader from seeing them
// end when they die.
void close_all_but(int keep) {
#ifdef SYS_close_range
  if (keep > 3) syscall(SYS_close_range, 3u, static_cast<unsigned>(keep - 1), 0u);
  if (syscall(SYS_close_range, static_cast<unsigned>(keep + 1), ~0u, 0u) == 0) return;
#endif
  for (int fd = 3; fd < 4096; ++fd)
    if (fd != keep) close(fd);
}

std::string program_log(const NvrtcApi& api, nvrtcProgram program) {
  size_t bytes = 0;
  if (api.nvrtcGetProgramLogSize(program, &bytes) != NVRTC_SUCCESS || bytes <= 1) return {};
  std::string log(bytes, '\0');
  if (api.nvrtcGetProgramLog(program, log.data()) != NVRTC_SUCCESS) return {};
  log.resize(strnlen(log.data(), log.size()));
  return log;
}

// In the worker: NVRTC opened, the job compiled, nothing else.
Compiled compile(const std::filesystem::path& library, const CompileJob& job) {
  Compiled out;
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    out.log = "cannot load " + library.string() + ": " + (why ? why : "dlopen failed");
    return out;
  }
  NvrtcApi api;
  std::string missing;
#define AOE_CUDA_RESOLVE(name, ret, params)                                 \
  api.name = reinterpret_cast<ret(*) params>(dlsym(handle, #name)); \
  if (!api.name) missing += std::string(missing.empty() ? "" : ", ") + #name;
  AOE_NVRTC_ENTRY_POINTS(AOE_CUDA_RESOLVE)
#undef AOE_CUDA_RESOLVE
  if (!missing.empty()) {
    out.log = library.string() + " lacks NVRTC entry points: " + missing;
    return out;
  }
  const auto start = Clock::now();
  auto failed = [&](const char* step, nvrtcResult r) {
    const char* text = api.nvrtcGetErrorString(r);
    return std::string(step) + " failed: " + (text ? text : std::to_string(r));
  };
  nvrtcProgram program = nullptr;
  nvrtcResult r = api.nvrtcCreateProgram(&program, job.source.c_str(), job.program_name.c_str(), 0, nullptr, nullptr);
  if (r != NVRTC_SUCCESS) {
    out.log = failed("nvrtcCreateProgram", r);
    return out;
  }
  if ((r = api.nvrtcAddNameExpression(program, job.kernel_name.c_str())) != NVRTC_SUCCESS) {
    out.log = failed("nvrtcAddNameExpression", r);
  } else {
    std::vector<const char*> options;
    for (const auto& o : job.options) options.push_back(o.c_str());
    r = api.nvrtcCompileProgram(program, static_cast<int>(options.size()), options.data());
    out.log = program_log(api, program);
    const char* lowered = nullptr;
    size_t bytes = 0;
    if (r != NVRTC_SUCCESS) {
      out.log = failed("nvrtcCompileProgram", r) + (out.log.empty() ? "" : "\n") + out.log;
    } else if ((r = api.nvrtcGetLoweredName(program, job.kernel_name.c_str(), &lowered)) != NVRTC_SUCCESS || !lowered) {
      out.log = failed("nvrtcGetLoweredName", r) + " for " + job.kernel_name + (out.log.empty() ? "" : "\n") + out.log;
    } else if ((r = api.nvrtcGetCUBINSize(program, &bytes)) != NVRTC_SUCCESS) {
      out.log = failed("nvrtcGetCUBINSize (is the architecture a real sm_XY?)", r) + "\n" + out.log;
    } else {
      out.lowered_name = lowered;
      out.cubin.resize(bytes);
      if ((r = api.nvrtcGetCUBIN(program, out.cubin.data())) != NVRTC_SUCCESS) {
        out.log = failed("nvrtcGetCUBIN", r) + "\n" + out.log;
        out.cubin.clear();
      } else {
        out.ok = true;
      }
    }
  }
  api.nvrtcDestroyProgram(&program);
  out.compile_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  return out;
}

[[noreturn]] void worker(int fd, const std::filesystem::path& library, const CompileJob& job) {
  close_all_but(fd);
  // A worker never outlives the thread that waits for it.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  // NVRTC crashing leaves no core file behind.
  const rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  const Compiled c = compile(library, job);
  Header h;
  h.ok = c.ok;
  h.compile_ms = c.compile_ms;
  h.cubin_bytes = c.cubin.size();
  h.lowered_bytes = c.lowered_name.size();
  h.log_bytes = c.log.size();
  write_all(fd, &h, sizeof h);
  write_all(fd, c.cubin.data(), c.cubin.size());
  write_all(fd, c.lowered_name.data(), c.lowered_name.size());
  write_all(fd, c.log.data(), c.log.size());
  // No destructors or atexit handlers: they belong to the caller.
  _exit(0);
}

std::string death_of(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* name = sigabbrev_np(sig);
    return std::string("the NVRTC worker crashed with SIG") + (name ? name : std::to_string(sig).c_str()) + " (" +
           strsignal(sig) + ")";
  }
  if (WIFEXITED(status)) return "the NVRTC worker exited with code " + std::to_string(WEXITSTATUS(status));
  return "the NVRTC worker ended abnormally";
}

// Everything the worker writes, until it closes its pipe or `deadline` passes (false).
bool read_until_end(int fd, Clock::time_point deadline, std::string& bytes) {
  char buffer[65536];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000 * 1000)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true;
    bytes.append(buffer, static_cast<size_t>(n));
  }
}

// The worker's bytes back into a result; false when they are cut short.
bool parse(const std::string& bytes, Compiled& out) {
  Header h;
  if (bytes.size() < sizeof h) return false;
  std::memcpy(&h, bytes.data(), sizeof h);
  if (bytes.size() != sizeof h + h.cubin_bytes + h.lowered_bytes + h.log_bytes) return false;
  size_t at = sizeof h;
  out.ok = h.ok != 0;
  out.compile_ms = h.compile_ms;
  out.cubin = bytes.substr(at, h.cubin_bytes);
  out.lowered_name = bytes.substr(at += h.cubin_bytes, h.lowered_bytes);
  out.log = bytes.substr(at += h.lowered_bytes, h.log_bytes);
  return true;
}

Compiled compile_in_worker(const std::filesystem::path& library, const CompileJob& job, double timeout_s) {
  Compiled out;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    out.log = std::string("cannot make a pipe for an NVRTC worker: ") + std::strerror(errno);
    return out;
  }
  const auto start = Clock::now();
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    out.log = std::string("cannot fork an NVRTC worker: ") + std::strerror(errno);
    return out;
  }
  if (pid == 0) {
    close(fds[0]);
    worker(fds[1], library, job);
  }
  close(fds[1]);
  std::string bytes;
  const auto deadline = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  const bool ended = read_until_end(fds[0], deadline, bytes);
  close(fds[0]);
  if (!ended) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  const double wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  if (!ended) {
    char text[128];
    std::snprintf(text, sizeof text, "the compile ran past the %.3g s time-out and its NVRTC worker was killed",
                  timeout_s);
    out.log = text;
    out.compile_ms = wall_ms;
    return out;
  }
  if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0) || !parse(bytes, out)) {
    out = Compiled{};
    out.log = death_of(status);
    out.compile_ms = wall_ms;
  }
  return out;
}

}  // namespace

CompilePool::CompilePool(std::filesystem::path nvrtc_library, unsigned workers, double timeout_s)
    : nvrtc_library_(std::move(nvrtc_library)), timeout_s_(timeout_s) {
  for (unsigned i = 0; i < std::max(1u, workers); ++i) threads_.emplace_back([this] { serve(); });
}

CompilePool::~CompilePool() {
  std::deque<Pending> dropped;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    dropped.swap(queue_);
  }
  ready_.notify_all();
  for (auto& t : threads_) t.join();
  for (auto& p : dropped) {
    Compiled c;
    c.log = "the compile pool was shut down before this compile started";
    p.promise.set_value(std::move(c));
  }
}

std::shared_future<Compiled> CompilePool::submit(CompileJob job) {
  Pending p{std::move(job), {}};
  std::shared_future<Compiled> result = p.promise.get_future().share();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(std::move(p));
  }
  ready_.notify_one();
  return result;
}

// One thread per worker slot: each takes the next job and waits on its process.
void CompilePool::serve() {
  for (;;) {
    Pending p;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      p = std::move(queue_.front());
      queue_.pop_front();
    }
    p.promise.set_value(compile_in_worker(nvrtc_library_, p.job, timeout_s_));
  }
}

unsigned default_compile_workers() {
  if (const char* value = std::getenv("TE_PARALLEL_COMPILER"); value) {
    char* end = nullptr;
    errno = 0;
    const long n = std::strtol(value, &end, 10);
    if (*value == '\0' || *end != '\0' || errno != 0 || n < 1 || n > 4096)
      throw sdk::Error(sdk::StatusCode::invalid_argument, std::string("TE_PARALLEL_COMPILER=\"") + value +
                                                              "\" is not a positive integer (the number of "
                                                              "NVRTC compiles to run at once)");
    return static_cast<unsigned>(n);
  }
  const unsigned cores = std::thread::hardware_concurrency();
  return cores > 1 ? cores - 1 : 1;
}

}  // namespace aoe::cuda
