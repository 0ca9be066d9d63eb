// preemption.cpp — the SIGUSR1 flag and the arming (see preemption.h).
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
std::atomic<int> g_signalled{0};
std::atomic<int> g_armed{0};

extern "C" void on_sigusr1(int) { g_signalled.store(1, std::memory_order_relaxed); }

}  // namespace

void install_preemption_handler() {
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigusr1;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  ::sigaction(SIGUSR1, &sa, nullptr);
}

bool preemption_signalled() { return g_signalled.load(std::memory_order_relaxed) != 0; }
void clear_preemption_signal() { g_signalled.store(0, std::memory_order_relaxed); }

void arm_preemption(bool on) { g_armed.store(on ? 1 : 0, std::memory_order_relaxed); }

bool preemption_armed() {
  if (g_armed.load(std::memory_order_relaxed)) return true;
  const char* v = std::getenv("SCALEBENCH_PREEMPTIBLE");
  return v && *v && std::strcmp(v, "0") != 0;
}

}  // namespace scalebench
