#include "compile_pool.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>

#include "aoe/sdk/error.h"
#include "cuda_api.h"

namespace aoe::cuda {
namespace {

using Clock = std::chrono::steady_clock;

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

// A forked process inherits every descriptor its parent had open, the
// server's pipes from its other workers among them: holding those would
// keep the server from seeing those workers end when they die.
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
#define AOE_CUDA_RESOLVE(name, ret, params)                         \
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

// ---- Messages, from the pool to its server and from a worker or the server
// back: a length, then the fields ----

void put(std::string& out, uint64_t v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); }
void put(std::string& out, const std::string& text) {
  put(out, static_cast<uint64_t>(text.size()));
  out += text;
}

// Fields read back in the order they were put; ok() false once one was cut short.
class Fields {
 public:
  explicit Fields(const std::string& bytes) : bytes_(bytes) {}
  uint64_t number() {
    uint64_t v = 0;
    if (at_ + sizeof v > bytes_.size()) return fail(), 0;
    std::memcpy(&v, bytes_.data() + at_, sizeof v);
    at_ += sizeof v;
    return v;
  }
  std::string text() {
    const uint64_t n = number();
    if (!ok_ || n > bytes_.size() - at_) return fail(), std::string();
    at_ += n;
    return bytes_.substr(at_ - n, n);
  }
  bool ok() const { return ok_; }

 private:
  void fail() { ok_ = false; }
  const std::string& bytes_;
  size_t at_ = 0;
  bool ok_ = true;
};

std::string framed(const std::string& payload) {
  std::string out;
  put(out, payload);
  return out;
}

std::string job_message(uint64_t id, const CompileJob& job) {
  std::string m;
  put(m, id);
  put(m, job.source);
  put(m, job.program_name);
  put(m, job.kernel_name);
  put(m, static_cast<uint64_t>(job.options.size()));
  for (const auto& o : job.options) put(m, o);
  return framed(m);
}

std::string result_message(uint64_t id, const Compiled& c) {
  std::string m;
  put(m, id);
  put(m, static_cast<uint64_t>(c.ok));
  uint64_t ms_bits = 0;
  std::memcpy(&ms_bits, &c.compile_ms, sizeof ms_bits);
  put(m, ms_bits);
  put(m, c.cubin);
  put(m, c.lowered_name);
  put(m, c.log);
  return framed(m);
}

bool decode_result(const std::string& message, uint64_t& id, Compiled& c) {
  Fields f(message);
  id = f.number();
  c.ok = f.number() != 0;
  const uint64_t ms_bits = f.number();
  std::memcpy(&c.compile_ms, &ms_bits, sizeof ms_bits);
  c.cubin = f.text();
  c.lowered_name = f.text();
  c.log = f.text();
  return f.ok();
}

// A whole message off the front of `buffer`, if one has come.
bool take_message(std::string& buffer, std::string& payload) {
  Fields f(buffer);
  payload = f.text();
  if (!f.ok()) return false;
  buffer.erase(0, sizeof(uint64_t) + payload.size());
  return true;
}

bool send_all(int fd, const std::string& bytes) {
  size_t sent = 0;
  while (sent < bytes.size()) {
    // MSG_NOSIGNAL: a peer that is gone is an error to report, not a SIGPIPE.
    const ssize_t n = send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    sent += static_cast<size_t>(n);
  }
  return true;
}

[[noreturn]] void worker(int fd, const std::filesystem::path& library, const CompileJob& job) {
  close_all_but(fd);
  // A worker never outlives the server that waits for it.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  const std::string result = result_message(0, compile(library, job));
  write_all(fd, result.data(), result.size());
  // No destructors or atexit handlers: they belong to the caller.
  _exit(0);
}

// ---- The compile server: single-threaded, so each fork of a worker is safe ----

class Server {
 public:
  Server(int socket, std::filesystem::path library, unsigned workers, double timeout_s)
      : socket_(socket), library_(std::move(library)), workers_(workers), timeout_s_(timeout_s) {}

  [[noreturn]] void run() {
    for (;;) {
      while (!caller_gone_ && running_.size() < workers_ && !queue_.empty()) {
        start(queue_.front().first, queue_.front().second);
        queue_.pop_front();
      }
      if (caller_gone_ && running_.empty()) _exit(0);
      wait_and_handle();
    }
  }

 private:
  struct Running {
    uint64_t id;
    pid_t pid;
    Clock::time_point start, deadline;
    std::string bytes;
  };

  void start(uint64_t id, const CompileJob& job) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
      return reply(id, failure(std::string("cannot make a pipe: ") + std::strerror(errno)));
    const auto now = Clock::now();
    const pid_t pid = fork();
    if (pid < 0) {
      close(fds[0]);
      close(fds[1]);
      return reply(id, failure(std::string("cannot fork an NVRTC worker: ") + std::strerror(errno)));
    }
    if (pid == 0) worker(fds[1], library_, job);
    close(fds[1]);
    const auto limit = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s_));
    running_[fds[0]] = Running{id, pid, now, now + limit, {}};
  }

  void wait_and_handle() {
    std::vector<pollfd> fds;
    if (!caller_gone_) fds.push_back({socket_, POLLIN, 0});
    auto soonest = Clock::time_point::max();
    for (const auto& [fd, r] : running_) {
      fds.push_back({fd, POLLIN, 0});
      soonest = std::min(soonest, r.deadline);
    }
    int wait_ms = -1;
    if (!running_.empty()) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(soonest - Clock::now()).count() + 1;
      wait_ms = static_cast<int>(std::clamp<long long>(left, 0, 1000 * 1000));
    }
    if (poll(fds.data(), fds.size(), wait_ms) < 0 && errno != EINTR) _exit(5);
    char buffer[65536];
    for (const auto& p : fds) {
      if (!(p.revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = read(p.fd, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (p.fd == socket_) {
        if (n <= 0) return caller_left();
        incoming_.append(buffer, static_cast<size_t>(n));
        for (std::string m; take_message(incoming_, m);) queue_job(m);
      } else if (n > 0) {
        running_[p.fd].bytes.append(buffer, static_cast<size_t>(n));
      } else {
        finish(p.fd, true);
      }
    }
    const auto now = Clock::now();
    for (auto it = running_.begin(); it != running_.end();) {
      const int fd = (it++)->first;
      if (running_[fd].deadline <= now) finish(fd, false);
    }
  }

  void queue_job(const std::string& message) {
    Fields f(message);
    const uint64_t id = f.number();
    CompileJob job;
    job.source = f.text();
    job.program_name = f.text();
    job.kernel_name = f.text();
    const uint64_t options = f.number();
    for (uint64_t i = 0; f.ok() && i < options; ++i) job.options.push_back(f.text());
    if (f.ok()) queue_.emplace_back(id, std::move(job));
  }

  // The pool is going: what has not started never will; what runs finishes.
  void caller_left() {
    caller_gone_ = true;
    for (const auto& q : queue_) reply(q.first, failure("the compile pool was shut down before this compile started"));
    queue_.clear();
  }

  void finish(int fd, bool ended) {
    Running r = std::move(running_[fd]);
    running_.erase(fd);
    close(fd);
    if (!ended) kill(r.pid, SIGKILL);
    int status = 0;
    while (waitpid(r.pid, &status, 0) < 0 && errno == EINTR) {
    }
    const double wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - r.start).count();
    Compiled c;
    uint64_t unused = 0;
    std::string message;
    if (!ended) {
      char text[128];
      std::snprintf(text, sizeof text, "the compile ran past the %.3g s time-out and its NVRTC worker was killed",
                    timeout_s_);
      c = failure(text, wall_ms);
    } else if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0) || !take_message(r.bytes, message) ||
               !decode_result(message, unused, c)) {
      c = failure(death_of(status), wall_ms);
    }
    reply(r.id, c);
  }

  static Compiled failure(const std::string& why, double ms = 0) {
    Compiled c;
    c.log = why;
    c.compile_ms = ms;
    return c;
  }

  void reply(uint64_t id, const Compiled& c) {
    if (!send_all(socket_, result_message(id, c))) _exit(0);  // the pool is gone: nobody waits
  }

  int socket_;
  std::filesystem::path library_;
  unsigned workers_;
  double timeout_s_;
  bool caller_gone_ = false;
  std::string incoming_;
  std::deque<std::pair<uint64_t, CompileJob>> queue_;
  std::map<int, Running> running_;  // by the read end of the worker's pipe
};

// The server forked, or -1 when fork failed or the server's first
// allocations after it never finished: a lock that another thread of the
// caller held at the fork (the allocator's, under a sanitizer) stays held in
// the child for good.
pid_t start_server(int fds[2], const std::filesystem::path& library, unsigned workers, double timeout_s) {
  const pid_t pid = fork();
  if (pid < 0) return pid;
  if (pid == 0) {
    close_all_but(fds[1]);
    // NVRTC crashing leaves no core file behind.
    const rlimit no_core{0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    Server server(fds[1], library, workers, timeout_s);
    if (!send_all(fds[1], "R")) _exit(0);
    server.run();
  }
  pollfd p{fds[0], POLLIN, 0};
  int polled = 0;
  while ((polled = poll(&p, 1, 10 * 1000)) < 0 && errno == EINTR) {
  }
  char ready = 0;
  if (polled == 1 && read(fds[0], &ready, 1) == 1 && ready == 'R') return pid;
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  return -1;
}

}  // namespace

CompilePool::CompilePool(std::filesystem::path nvrtc_library, unsigned workers, double timeout_s)
    : workers_(std::max(1u, workers)) {
  for (int attempt = 0; attempt < 3 && server_ < 0; ++attempt) {
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
      throw sdk::Error(sdk::StatusCode::internal,
                       std::string("cannot make a socket for the compile server: ") + std::strerror(errno));
    server_ = start_server(fds, nvrtc_library, workers_, timeout_s);
    close(fds[1]);
    if (server_ >= 0)
      socket_ = fds[0];
    else
      close(fds[0]);
  }
  if (server_ < 0)
    throw sdk::Error(sdk::StatusCode::internal,
                     "the NVRTC compile server did not start: fork failed, or the server hung after it");
  reader_ = std::thread([this] { read_results(); });
}

CompilePool::~CompilePool() {
  // The server sees the end of its jobs, answers what it has, and exits, which ends the reader.
  shutdown(socket_, SHUT_WR);
  reader_.join();
  close(socket_);
  int status = 0;
  while (waitpid(server_, &status, 0) < 0 && errno == EINTR) {
  }
}

std::shared_future<Compiled> CompilePool::submit(CompileJob job) {
  std::promise<Compiled> promise;
  std::shared_future<Compiled> result = promise.get_future().share();
  uint64_t id = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (server_gone_) {
      Compiled c;
      c.log = "the NVRTC compile server is gone";
      promise.set_value(std::move(c));
      return result;
    }
    id = next_id_++;
    pending_.emplace(id, std::move(promise));
  }
  // Sent outside mutex_, which the reader needs to hand results over while this waits on the socket.
  std::lock_guard<std::mutex> lock(send_mutex_);
  if (!send_all(socket_, job_message(id, job))) fail_pending("the NVRTC compile server is gone");
  return result;
}

void CompilePool::read_results() {
  std::string buffer;
  char chunk[65536];
  for (;;) {
    const ssize_t n = read(socket_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    buffer.append(chunk, static_cast<size_t>(n));
    for (std::string m; take_message(buffer, m);) {
      uint64_t id = 0;
      Compiled c;
      const bool whole = decode_result(m, id, c);
      std::lock_guard<std::mutex> lock(mutex_);
      const auto it = pending_.find(id);
      if (!whole || it == pending_.end()) continue;
      it->second.set_value(std::move(c));
      pending_.erase(it);
    }
  }
  fail_pending("the NVRTC compile server ended before answering");
}

void CompilePool::fail_pending(const std::string& why) {
  std::lock_guard<std::mutex> lock(mutex_);
  server_gone_ = true;
  for (auto& [id, promise] : pending_) {
    Compiled c;
    c.log = why;
    promise.set_value(std::move(c));
  }
  pending_.clear();
}

unsigned default_compile_workers() {
  if (const char* value = std::getenv("TE_PARALLEL_COMPILER"); value) {
    char* end = nullptr;
    errno = 0;
    const long n = std::strtol(value, &end, 10);
    if (*value == '\0' || *end != '\0' || errno != 0 || n < 1 || n > 4096)
      throw sdk::Error(sdk::StatusCode::invalid_argument, std::string("TE_PARALLEL_COMPILER=\"") + value +
                                                              "\" is not a whole number from 1 to 4096 (the "
                                                              "NVRTC compiles to run at once)");
    return static_cast<unsigned>(n);
  }
  const unsigned cores = std::thread::hardware_concurrency();
  return cores > 1 ? cores - 1 : 1;
}

std::string log_tail(const std::string& log, size_t keep) {
  return log.size() <= keep ? log : "..." + log.substr(log.size() - keep);
}

}  // namespace aoe::cuda
