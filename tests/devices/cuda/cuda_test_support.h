// What the cuda plumbing tests share: environment variables set for one
// test, and a body run in a forked child, for faults that end the process.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <thread>

namespace aoe::cuda::test {

// Sets (or, given nullptr, unsets) a variable until the end of the scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value)
      ::setenv(name, value, 1);
    else
      ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_.c_str(), old_->c_str(), 1);
    else
      ::unsetenv(name_.c_str());
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

struct ChildEnd {
  bool timed_out = false;
  int status = 0;  // as waitpid gives it
  bool exited(int code) const { return !timed_out && WIFEXITED(status) && WEXITSTATUS(status) == code; }
  bool signalled(int sig) const { return !timed_out && WIFSIGNALED(status) && WTERMSIG(status) == sig; }
};

// `body` in a child process, its return value the exit code; killed past `timeout_s`.
inline ChildEnd run_in_child(const std::function<int()>& body, double timeout_s = 20) {
  const pid_t pid = fork();
  if (pid == 0) _exit(body());
  ChildEnd end;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (waitpid(pid, &end.status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &end.status, 0);
      end.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return end;
}

}  // namespace aoe::cuda::test
