// preemption.cpp — the stop-signal flag (see preemption.h).
#include "harness/train/preemption.h"

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <cstring>

namespace scalebench {
namespace {

// Lock-free atomics may be used in a signal handler (C++17 [support.signal]); unlike a volatile
// sig_atomic_t they are also race-free for the other threads that read the flag.
static_assert(std::atomic<int>::is_always_lock_free);
std::atomic<int> g_signal{0};  // the first stopping signal's number, 0 before any

extern "C" void on_stop_signal(int sig) {
  int none = 0;
  if (g_signal.compare_exchange_strong(none, sig, std::memory_order_relaxed)) return;
  // A second SIGINT/SIGTERM: the user insists. Die of it (the run file's heartbeat then tells
  // status and collect that the run is dead). signal() and raise() are async-signal-safe.
  if (sig == SIGINT || sig == SIGTERM) {
    ::signal(sig, SIG_DFL);
    ::raise(sig);
  }
}

}  // namespace

void install_preemption_handler() {
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  for (int sig : {SIGUSR1, SIGTERM, SIGINT}) ::sigaction(sig, &sa, nullptr);
}

bool preemption_signalled() { return g_signal.load(std::memory_order_relaxed) != 0; }
void clear_preemption_signal() { g_signal.store(0, std::memory_order_relaxed); }

int preemption_signal() { return g_signal.load(std::memory_order_relaxed); }

const char* signal_name(int sig) {
  switch (sig) {
    case SIGUSR1: return "SIGUSR1";
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    default: return "a stop request";
  }
}

}  // namespace scalebench
