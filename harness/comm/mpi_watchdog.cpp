// mpi_watchdog.cpp — see mpi_watchdog.h. The thread sleeps until the earliest deadline (or a change),
// so an idle watchdog costs nothing; arming is a lock and a map insert per native collective.
#include "harness/comm/mpi_watchdog.h"

#include <cstdio>
#include <cstdlib>

#include "harness/comm/communicator.h"
#include "harness/comm/mpi_check.h"

namespace scalebench::comm {

MpiWatchdog::~MpiWatchdog() {
  {
    std::lock_guard lk(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::uint64_t MpiWatchdog::arm(double timeout_s, const char* op, std::size_t count, int rank) {
  if (!enabled_) return 0;
  std::lock_guard lk(mu_);
  if (!thread_.joinable()) thread_ = std::thread([this] { loop(); });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                               std::chrono::duration<double>(timeout_s));
  const std::uint64_t id = next_++;
  live_.emplace(id, Entry{deadline, timeout_s, op, count, rank});
  cv_.notify_all();
  return id;
}

void MpiWatchdog::disarm(std::uint64_t token) {
  if (token == 0) return;
  std::lock_guard lk(mu_);
  live_.erase(token);
}

void MpiWatchdog::loop() {
  std::unique_lock lk(mu_);
  while (!stop_) {
    if (live_.empty()) {
      cv_.wait(lk);
      continue;
    }
    auto first = live_.begin();
    for (auto it = live_.begin(); it != live_.end(); ++it)
      if (it->second.deadline < first->second.deadline) first = it;
    if (const auto deadline = first->second.deadline; std::chrono::steady_clock::now() < deadline) {
      // A copy: wait_until reads the time point again after the lock is retaken, when disarm() may
      // have erased the entry (ASan: heap-use-after-free).
      cv_.wait_until(lk, deadline);
      continue;
    }
    const Entry e = first->second;
    std::fflush(stdout);
    std::fprintf(stderr,
                 "scalebench: error: rank %d on %s: native %s of %zu elements did not complete within the %g s "
                 "timeout; a peer rank is dead, stalled or deadlocked\n",
                 e.rank, hostname().c_str(), e.op, e.count, e.timeout_s);
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    std::abort();
  }
}

}  // namespace scalebench::comm
