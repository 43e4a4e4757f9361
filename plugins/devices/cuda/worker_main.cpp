// aoe-cuda-worker: the process that holds the CUDA context for the cuda
// device. It reads requests on stdin and answers on stdout (Frames, see
// gpu_session.h) until stdin closes or the context is lost.
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>

#include "gpu_session.h"
#include "worker_protocol.h"

int main() {
  // A worker never outlives the device that started it, and a candidate
  // that crashes it leaves no core file behind.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  const rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  aoe::cuda::GpuSession session;
  for (;;) {
    aoe::cuda::Frame request;
    if (aoe::cuda::read_frame(STDIN_FILENO, request) != aoe::cuda::ReadResult::frame) return 0;
    bool lost = false;
    aoe::cuda::Frame reply = session.serve(request, lost);
    if (lost) reply.header["lost"] = true;
    if (!aoe::cuda::write_frame(STDOUT_FILENO, reply)) return 0;
    // No destructors: a lost context may hang in its teardown.
    if (lost) _exit(3);
  }
}
