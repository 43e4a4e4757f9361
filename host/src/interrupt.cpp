#include "interrupt.h"

#include <atomic>
#include <csignal>

namespace aoe::host {
namespace {

// A signal handler can only reach static storage: this flag is the one
// piece of global state, set there and read by the cancellation service.
std::atomic<bool> stop_requested{false};

void on_signal(int sig) {
  if (stop_requested.exchange(true)) {
    std::signal(sig, SIG_DFL);
    std::raise(sig);
  }
}

}  // namespace

void install_interrupt_handlers() {
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
}

bool interrupted() { return stop_requested.load(); }

}  // namespace aoe::host
