#include "gpu_worker.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "aoe/sdk/error.h"

extern char** environ;

namespace aoe::cuda {
namespace {

using Clock = std::chrono::steady_clock;

Clock::time_point after(double seconds) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

// "30 s", "2.5 s": as a user wrote the time-out.
std::string seconds_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%g s", seconds);
  return text;
}

}  // namespace

GpuWorker::GpuWorker(WorkerSetup setup) : setup_(std::move(setup)) {
  std::lock_guard<std::mutex> lock(mutex_);
  start();
}

GpuWorker::~GpuWorker() {
  std::lock_guard<std::mutex> lock(mutex_);
  stop();
}

void GpuWorker::start() {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(setup_.executable, ec))
    throw sdk::Error(sdk::StatusCode::not_found, "the cuda device's worker " + setup_.executable.string() +
                                                     " is missing: it is installed beside the plugin (set the "
                                                     "device option 'worker' to where it lies)");
  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0)
    throw sdk::Error(sdk::StatusCode::internal, std::string("cannot make the GPU worker's pipes: ") + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  const std::string path = setup_.executable.string();
  char* argv[] = {const_cast<char*>(path.c_str()), nullptr};
  pid_t pid = -1;
  const int spawned = posix_spawn(&pid, path.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  close(in[0]);
  close(out[1]);
  if (spawned != 0) {
    close(in[1]);
    close(out[0]);
    throw sdk::Error(sdk::StatusCode::not_found, "cannot start " + path + ": " + std::strerror(spawned));
  }
  pid_ = pid;
  to_worker_ = in[1];
  from_worker_ = out[0];
  task_ = 0;
  ++starts_;
  const Frame open{"open",
                   {{"driver", setup_.driver}, {"nvrtc", setup_.nvrtc}, {"nvml", setup_.nvml}, {"device_id", setup_.device_id}},
                   {}};
  Frame reply;
  const bool sent = write_frame(to_worker_, open);
  const ReadResult got = sent ? read_frame(from_worker_, after(setup_.open_timeout_s), reply) : ReadResult::closed;
  if (got == ReadResult::frame && reply.kind == "opened") {
    properties_ = reply.header;
    return;
  }
  std::string why = got == ReadResult::frame ? reply.header.value("message", reply.kind)
                    : got == ReadResult::overran ? "no answer within " + seconds_text(setup_.open_timeout_s)
                                                 : death();
  stop();
  throw sdk::Error(sdk::StatusCode::not_found, "cannot open the GPU: " + why);
}

void GpuWorker::stop() {
  if (to_worker_ >= 0) close(to_worker_);
  if (from_worker_ >= 0) close(from_worker_);
  if (pid_ >= 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  pid_ = to_worker_ = from_worker_ = -1;
  task_ = 0;
}

// How the worker ended, once its pipe closed.
std::string GpuWorker::death() {
  int status = 0;
  if (pid_ < 0 || waitpid(pid_, &status, 0) != pid_) return "the GPU worker ended";
  pid_ = -1;
  if (WIFSIGNALED(status))
    return std::string("the GPU worker was killed by signal ") + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  if (WIFEXITED(status) && WEXITSTATUS(status) == 3) return "the CUDA context was lost; the GPU worker restarts";
  return "the GPU worker exited with code " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

Frame GpuWorker::call(uint64_t task, const std::vector<Frame>& setup, const Frame& request, double timeout_s) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (pid_ < 0) start();
  const auto exchange = [&](const Frame& f, double seconds) -> Frame {
    Frame reply;
    const ReadResult got = write_frame(to_worker_, f) ? read_frame(from_worker_, after(seconds), reply) : ReadResult::closed;
    if (got == ReadResult::frame) return reply;
    if (got == ReadResult::overran) {
      stop();
      return {"timeout", {{"message", "no result within " + seconds_text(timeout_s) + "; the GPU worker was killed"}}, {}};
    }
    Frame died{"died", {{"message", death()}}, {}};
    stop();
    return died;
  };
  if (task_ != task) {
    for (const auto& f : setup) {
      Frame reply = exchange(f, setup_.open_timeout_s);
      if (reply.kind != "ok") return reply;
    }
    task_ = task;
  }
  Frame reply = exchange(request, timeout_s);
  // A worker that lost its context exits after replying; reap it now so the next call starts a fresh one.
  if (reply.header.value("lost", false)) {
    death();
    stop();
  }
  return reply;
}

}  // namespace aoe::cuda
