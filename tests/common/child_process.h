// The one way the tests and the benchmarks run a program: a child process
// whose output goes to files (so a chatty child never blocks on a pipe),
// with its environment built before fork, so the child only makes system calls.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace aoe::test {

struct ProcessResult {
  int exit_code = -1;  // 128 + signal when killed
  std::string out;
  std::string err;
  double wall_s = 0;
  double cpu_s = 0;  // the child's user + system time: what a busy machine's wall clock hides
};

struct ChildOptions {
  std::filesystem::path cwd;
  std::map<std::string, std::string> env;  // added to, or overriding, this process's environment
  std::set<std::string> env_removed;       // names dropped from it
  // Where stdout.txt and stderr.txt are written and kept; empty: temporary
  // files, removed with the ChildProcess.
  std::filesystem::path output_dir;
};

// A child started and not yet waited for: a test can watch its output and
// signal it meanwhile.
class ChildProcess {
 public:
  ChildProcess(const std::vector<std::string>& argv, const ChildOptions& options);
  ChildProcess(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
               const std::map<std::string, std::string>& env = {});
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess();

  std::string err_so_far() const;
  void signal(int signal_number) const;
  // Waits at most `timeout_s`, then kills it (SIGKILL) so no caller hangs.
  ProcessResult wait(double timeout_s = 600);

 private:
  pid_t pid_ = -1;
  bool waited_ = false;
  bool keep_output_ = false;
  std::string out_file_, err_file_;
  double start_s_ = 0;
};

ProcessResult run_process(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
                          const std::map<std::string, std::string>& env = {});

// What a failed run said, for an assertion's message: its exit code, its
// warnings and errors and the last lines of its stderr first (where a
// shortened log still shows them), then the whole of stderr.
std::string failure_text(const ProcessResult& r);

}  // namespace aoe::test
