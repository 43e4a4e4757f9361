#include "host_runner.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <set>
#include <stdexcept>

extern char** environ;

namespace aoe::bench {
namespace {

namespace fs = std::filesystem;

// The settings a caller's environment could slip into a run and so skew it.
const std::set<std::string> kPinnedEnv = {"TUNE_BANK_PATH", "ASCEND_CACHE_PATH", "ASCEND_WORK_PATH", "REPEAT_TUNE",
                                          "TUNING_PARALLEL_NUM", "TE_PARALLEL_COMPILER", "AOE_MODE"};

std::vector<std::string> child_env(const fs::path& dir, const fs::path& bank) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    if (!kPinnedEnv.count(entry.substr(0, entry.find('=')))) env.push_back(entry);
  }
  env.push_back("TUNE_BANK_PATH=" + bank.string());
  env.push_back("ASCEND_WORK_PATH=" + dir.string());
  return env;
}

std::vector<char*> c_strings(std::vector<std::string>& items) {
  std::vector<char*> out;
  for (auto& s : items) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

// Output goes to files, so a chatty child never blocks on a pipe.
Run run_host(std::vector<std::string> args, const fs::path& dir, const fs::path& bank) {
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto env = child_env(dir, bank);
  const std::string out = (dir / "stdout.txt").string(), err = (dir / "stderr.txt").string();
  const std::string cwd = dir.string();
  auto argv = c_strings(args);
  auto envp = c_strings(env);  // built before fork: the child only makes system calls

  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork failed: ") + std::strerror(errno));
  if (pid == 0) {
    const int out_fd = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err_fd = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out_fd < 0 || err_fd < 0 || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0 || chdir(cwd.c_str()) != 0)
      _exit(126);
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  int status = 0;
  struct rusage usage {};
  while (wait4(pid, &status, 0, &usage) < 0)
    if (errno != EINTR) throw std::runtime_error(std::string("wait4 failed: ") + std::strerror(errno));
  Run run;
  run.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const auto seconds = [](const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) * 1e-6; };
  run.cpu_s = seconds(usage.ru_utime) + seconds(usage.ru_stime);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  run.dir = dir;
  return run;
}

}  // namespace aoe::bench
