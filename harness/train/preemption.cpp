// preemption.cpp — the stop-signal flag (see preemption.h).
#include "harness/train/preemption.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <thread>
#include <csignal>
#include <cstdlib>
#include <cstring>

namespace scalebench {
namespace {

// Lock-free atomics may be used in a signal handler (C++17 [support.signal]); unlike a volatile
// sig_atomic_t they are also race-free for the other threads that read the flag.
static_assert(std::atomic<int>::is_always_lock_free);
std::atomic<int> g_signal{0};  // the first stopping signal's number, 0 before any
// A self-pipe: the handler writes one byte on the first signal, so a thread can sleep in poll()
// until it comes (write() is async-signal-safe; a condition variable may not be notified here).
int g_pipe[2] = {-1, -1};

extern "C" void on_stop_signal(int sig) {
  int none = 0;
  if (g_signal.compare_exchange_strong(none, sig, std::memory_order_relaxed)) {
    if (g_pipe[1] >= 0) {
      const int saved = errno;  // a handler must leave errno as it found it
      [[maybe_unused]] const ssize_t n = ::write(g_pipe[1], "s", 1);
      errno = saved;
    }
    return;
  }
  // A second SIGINT/SIGTERM: the user insists. Die of it (the run file's heartbeat then tells
  // status and collect that the run is dead). signal() and raise() are async-signal-safe.
  if (sig == SIGINT || sig == SIGTERM) {
    ::signal(sig, SIG_DFL);
    ::raise(sig);
  }
}

}  // namespace

void install_preemption_handler() {
  // Once, before the handler can run (a failed pipe2 leaves -1: no wake-ups, the flag still works).
  static const bool piped = ::pipe2(g_pipe, O_CLOEXEC | O_NONBLOCK) == 0;
  (void)piped;
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  for (int sig : {SIGUSR1, SIGTERM, SIGINT}) ::sigaction(sig, &sa, nullptr);
}

bool preemption_signalled() { return g_signal.load(std::memory_order_relaxed) != 0; }
void clear_preemption_signal() {
  g_signal.store(0, std::memory_order_relaxed);
  char drain[64];
  while (g_pipe[0] >= 0 && ::read(g_pipe[0], drain, sizeof drain) > 0) {
  }
}

int preemption_wakeup_fd() { return g_pipe[0]; }

void sleep_in_step_for_tests() {
  static const double seconds = [] {
    const char* v = std::getenv("SCALEBENCH_STEP_SLEEP_S");
    return v && *v ? std::atof(v) : 0.0;
  }();
  if (seconds > 0) std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

void signal_in_step_for_tests(std::int64_t step) {
  static const std::int64_t at = [] {
    const char* v = std::getenv("SCALEBENCH_SIGNAL_IN_STEP");
    return v && *v ? std::int64_t(std::atoll(v)) : std::int64_t(-1);
  }();
  if (step == at && !preemption_signalled()) ::raise(SIGTERM);  // a second SIGTERM would kill
}

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
