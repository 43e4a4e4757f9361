// Runs a command as a child process and captures what it prints.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace aoe::test {

struct ProcessResult {
  int exit_code = -1;  // 128 + signal when killed
  std::string out;
  std::string err;
};

// A child started and not yet waited for: a test can watch its output and
// signal it meanwhile. Output goes to files, so a chatty child never blocks.
class ChildProcess {
 public:
  // env entries are added to (or override) this process's environment.
  ChildProcess(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
               const std::map<std::string, std::string>& env = {});
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess();

  std::string err_so_far() const;
  void signal(int signal_number) const;
  // Waits at most `timeout_s`, then kills it (SIGKILL) so no test hangs.
  ProcessResult wait(double timeout_s = 600);

 private:
  pid_t pid_ = -1;
  bool waited_ = false;
  std::string out_file_, err_file_;
};

ProcessResult run_process(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
                          const std::map<std::string, std::string>& env = {});

}  // namespace aoe::test
