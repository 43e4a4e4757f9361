#include "worker.h"

#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>

#include "aoe/sdk/error.h"

namespace aoe::cpu {
namespace {

enum Kind : uint32_t { kBegin = 1, kResult = 2, kRan = 3 };

// Small enough that a write of one is atomic (PIPE_BUF).
struct Message {
  uint32_t kind = 0;
  uint32_t index = 0;
  int32_t status = 0;
  uint32_t repeats = 0;
  double time_us = 0;
  double noise = 0;
  char text[400] = {};
};
static_assert(sizeof(Message) < PIPE_BUF);

void send(int fd, const Message& m) {
  const char* p = reinterpret_cast<const char*>(&m);
  size_t left = sizeof m;
  while (left > 0) {
    const ssize_t n = write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) _exit(3);  // the parent is gone
    p += n;
    left -= static_cast<size_t>(n);
  }
}

// 1: a whole message; 0: end of file; -1: an error.
int receive(int fd, Message& m) {
  char* p = reinterpret_cast<char*>(&m);
  size_t got = 0;
  while (got < sizeof m) {
    const ssize_t n = read(fd, p + got, sizeof m - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -1;
    if (n == 0) return got == 0 ? 0 : -1;
    got += static_cast<size_t>(n);
  }
  return 1;
}

// A result as it crosses the pipe, and back.
Message result_message(size_t index, const sdk::Measurement& m) {
  Message result;
  result.kind = kResult;
  result.index = static_cast<uint32_t>(index);
  result.status = static_cast<int32_t>(m.status);
  result.repeats = m.repeats;
  result.time_us = m.time_us;
  result.noise = m.noise;
  std::strncpy(result.text, m.message.c_str(), sizeof result.text - 1);
  return result;
}

sdk::Measurement measurement_of(const Message& m) {
  sdk::Measurement r;
  r.status = static_cast<sdk::ResultStatus>(m.status);
  r.time_us = m.time_us;
  r.noise = m.noise;
  r.repeats = m.repeats;
  r.message.assign(m.text, strnlen(m.text, sizeof m.text));
  return r;
}

class PipeProgress final : public WorkerProgress {
 public:
  explicit PipeProgress(int fd) : fd_(fd) {}
  void begin(size_t jobs) override {
    Message m;
    m.kind = kBegin;
    m.repeats = static_cast<uint32_t>(jobs);
    send(fd_, m);
  }
  void report(size_t index, const sdk::Measurement& result) override { send(fd_, result_message(index, result)); }
  void ran() override {
    Message m;
    m.kind = kRan;
    send(fd_, m);
  }

 private:
  int fd_;
};

// A job run alone tells only of its runs: child() reports its start and result.
class RunsOnly final : public WorkerProgress {
 public:
  explicit RunsOnly(WorkerProgress& pipe) : pipe_(pipe) {}
  void begin(size_t) override {}
  void report(size_t, const sdk::Measurement&) override {}
  void ran() override { pipe_.ran(); }

 private:
  WorkerProgress& pipe_;
};

void child(int fd, size_t first, size_t count, const std::function<sdk::Measurement(size_t, WorkerProgress&)>& job) {
  PipeProgress pipe(fd);
  RunsOnly runs(pipe);
  for (size_t i = first; i < count; ++i) {
    Message begin;
    begin.kind = kBegin;
    begin.index = static_cast<uint32_t>(i);
    send(fd, begin);
    sdk::Measurement m;
    try {
      m = job(i, runs);
    } catch (const std::exception& e) {
      m = sdk::Measurement::failed(sdk::ResultStatus::run_failed, e.what());
    }
    send(fd, result_message(i, m));
  }
}

// The settings every worker makes first.
void become_worker() {
  // A worker never outlives the process that times it.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() == 1) _exit(4);
  // A candidate that crashes on purpose or by mistake leaves no core file behind.
  const rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
}


// A forked worker and the read end of its pipe; the child side runs `body`.
struct Worker {
  pid_t pid = -1;
  int fd = -1;
};
Worker fork_worker(const std::function<void(int)>& body) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0)
    throw sdk::Error(sdk::StatusCode::internal, std::string("cannot make a pipe for a worker: ") + std::strerror(errno));
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    throw sdk::Error(sdk::StatusCode::internal, std::string("cannot fork a worker: ") + std::strerror(errno));
  }
  if (pid == 0) {
    close(fds[0]);
    become_worker();
    body(fds[1]);
    // No destructors or atexit handlers: they belong to the parent.
    _exit(0);
  }
  close(fds[1]);
  return {pid, fds[0]};
}

using Clock = std::chrono::steady_clock;
enum class Wait { message, closed, overran };

// The worker's next message, or the end of its pipe, or `deadline` passed.
Wait next_message(int fd, Clock::time_point deadline, Message& m) {
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    pollfd p{fd, POLLIN, 0};
    const int ready = left > 0 ? poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000 * 1000))) : 0;
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0 && Clock::now() < deadline) continue;
    if (ready == 0) return Wait::overran;
    return receive(fd, m) > 0 ? Wait::message : Wait::closed;
  }
}

Clock::time_point after(double seconds) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

std::string death_of(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* name = sigabbrev_np(sig);
    return std::string("the candidate crashed the worker with SIG") + (name ? name : std::to_string(sig).c_str()) +
           " (" + strsignal(sig) + ")";
  }
  if (WIFEXITED(status)) return "the worker exited with code " + std::to_string(WEXITSTATUS(status));
  return "the worker ended abnormally";
}

}  // namespace

std::vector<sdk::Measurement> run_isolated(size_t count,
                                           const std::function<sdk::Measurement(size_t, WorkerProgress&)>& job,
                                           const WorkerOptions& options) {
  std::vector<sdk::Measurement> results(count);
  size_t next = 0;
  while (next < count) {
    const auto [pid, fd] = fork_worker([&](int out) { child(out, next, count, job); });
    long current = -1;  // the job the worker has started and not finished
    auto deadline = after(options.timeout_s);
    for (;;) {
      Message m;
      const Wait got = next_message(fd, deadline, m);
      if (got == Wait::overran) {
        kill(pid, SIGKILL);
        waitpid(pid, nullptr, 0);
        const size_t late = current >= 0 ? static_cast<size_t>(current) : next;
        char text[192];
        std::snprintf(text, sizeof text,
                      "a run of the candidate went past the %.3g s time-out and its worker was killed (a longer "
                      "one: --device_options '{\"timeout_s\": %.3g}')",
                      options.timeout_s, 4 * options.timeout_s);
        results[late] = sdk::Measurement::failed(sdk::ResultStatus::timeout, text);
        next = late + 1;
        break;
      }
      if (got == Wait::closed) {
        int status = 0;
        waitpid(pid, &status, 0);
        if (current >= 0 || next < count) {
          const size_t dead = current >= 0 ? static_cast<size_t>(current) : next;
          results[dead] = sdk::Measurement::failed(sdk::ResultStatus::run_failed, death_of(status));
          next = dead + 1;
        }
        break;
      }
      if (m.kind == kBegin) {
        current = static_cast<long>(m.index);
        deadline = after(options.timeout_s);
      } else if (m.kind == kRan) {
        deadline = after(options.timeout_s);
      } else if (m.kind == kResult && m.index < count) {
        results[m.index] = measurement_of(m);
        next = m.index + 1;
        current = -1;
      }
    }
    close(fd);
  }
  return results;
}

bool run_together(size_t count, const std::function<void(WorkerProgress&)>& jobs, const WorkerOptions& options,
                  std::vector<sdk::Measurement>& results) {
  const auto [pid, fd] = fork_worker([&](int out) {
    PipeProgress progress(out);
    jobs(progress);
  });
  results.assign(count, {});
  std::vector<bool> came(count, false);
  size_t arrived = 0;
  auto deadline = after(options.timeout_s);
  bool overran = false;
  for (;;) {
    Message m;
    const Wait got = next_message(fd, deadline, m);
    if (got == Wait::overran) {
      kill(pid, SIGKILL);
      overran = true;
    }
    if (got != Wait::message) break;
    if (m.kind == kBegin) {
      deadline = after(options.timeout_s * std::max<uint32_t>(1, m.repeats));
    } else if (m.kind == kRan) {
      deadline = after(options.timeout_s);
    } else if (m.kind == kResult && m.index < count && !came[m.index]) {
      results[m.index] = measurement_of(m);
      came[m.index] = true;
      ++arrived;
    }
  }
  int status = 0;
  waitpid(pid, &status, 0);
  close(fd);
  return !overran && arrived == count && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace aoe::cpu
