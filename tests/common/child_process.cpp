#include "child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace aoe::test {
namespace {

std::string slurp(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::vector<std::string> child_environment(const ChildOptions& o) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    const auto name = entry.substr(0, entry.find('='));
    if (!o.env_removed.count(name) && !o.env.count(name)) env.push_back(entry);
  }
  for (const auto& [name, value] : o.env) env.push_back(name + "=" + value);
  return env;
}

std::vector<char*> c_strings(std::vector<std::string>& items) {
  std::vector<char*> out;
  for (auto& s : items) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

ChildProcess::ChildProcess(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
                           const std::map<std::string, std::string>& env)
    : ChildProcess(argv, ChildOptions{cwd, env, {}, {}}) {}

ChildProcess::ChildProcess(const std::vector<std::string>& argv, const ChildOptions& options) {
  if (options.output_dir.empty()) {
    static int counter = 0;
    const auto base = std::filesystem::temp_directory_path() /
                      ("aoe_child_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    out_file_ = base.string() + ".out";
    err_file_ = base.string() + ".err";
  } else {
    keep_output_ = true;
    out_file_ = (options.output_dir / "stdout.txt").string();
    err_file_ = (options.output_dir / "stderr.txt").string();
  }
  auto args = argv;
  auto env = child_environment(options);
  auto args_c = c_strings(args);
  auto env_c = c_strings(env);
  const std::string cwd = options.cwd.string();
  start_s_ = now_s();
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error(std::string("fork failed: ") + std::strerror(errno));
  if (pid_ == 0) {
    const int out = ::open(out_file_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = ::open(err_file_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0 || err < 0 || ::dup2(out, 1) < 0 || ::dup2(err, 2) < 0) ::_exit(126);
    if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) ::_exit(126);
    ::execve(args_c[0], args_c.data(), env_c.data());
    ::_exit(127);
  }
}

ChildProcess::~ChildProcess() {
  if (!waited_) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  if (!keep_output_) {
    std::filesystem::remove(out_file_);
    std::filesystem::remove(err_file_);
  }
}

std::string ChildProcess::err_so_far() const { return slurp(err_file_); }

void ChildProcess::signal(int signal_number) const { ::kill(pid_, signal_number); }

ProcessResult ChildProcess::wait(double timeout_s) {
  const double deadline = start_s_ + timeout_s;
  int status = 0;
  struct rusage usage {};
  // Checks every 1 ms, then less often, to 20 ms: a parent that wakes every
  // millisecond beside a child running on every core slowed a two-thread
  // model run by half (BERT-base 140 -> 208 ms), as sleeping in steps of 2 ms
  // or more did not.
  auto pause = std::chrono::milliseconds(1);
  for (;;) {
    const pid_t done = ::wait4(pid_, &status, WNOHANG, &usage);
    if (done == pid_) break;
    if (done < 0 && errno != EINTR) throw std::runtime_error(std::string("wait4 failed: ") + std::strerror(errno));
    if (now_s() > deadline) {
      ::kill(pid_, SIGKILL);
      while (::wait4(pid_, &status, 0, &usage) < 0 && errno == EINTR) {
      }
      break;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(20));
  }
  waited_ = true;
  ProcessResult r;
  r.wall_s = now_s() - start_s_;
  const auto seconds = [](const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) * 1e-6; };
  r.cpu_s = seconds(usage.ru_utime) + seconds(usage.ru_stime);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(out_file_);
  r.err = slurp(err_file_);
  return r;
}

ProcessResult run_process(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
                          const std::map<std::string, std::string>& env) {
  return ChildProcess(argv, cwd, env).wait();
}

std::string failure_text(const ProcessResult& r) {
  std::vector<std::string> lines;
  std::istringstream in(r.err);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::string text = "exit code " + std::to_string(r.exit_code) + "; its warnings and errors:\n";
  for (const auto& line : lines)
    if (line.find("[warn") != std::string::npos || line.find("[error") != std::string::npos ||
        line.find("Sanitizer") != std::string::npos)
      text += line + "\n";
  constexpr size_t kTail = 15;
  text += "the end of its stderr:\n";
  for (size_t i = lines.size() > kTail ? lines.size() - kTail : 0; i < lines.size(); ++i) text += lines[i] + "\n";
  return text + "the whole of its stderr:\n" + r.err;
}

}  // namespace aoe::test
