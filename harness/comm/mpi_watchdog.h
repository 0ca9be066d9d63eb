// mpi_watchdog.h — internal to the mpi transport: a deadline for blocking native collectives.
// MPI_Allreduce and friends cannot be polled, so while one runs it is registered here, and a
// watchdog thread MPI_Aborts the job if it outlives the communicator's timeout (a stalled, not dead,
// peer; dead peers are handled by the MPI runtime). Needs MPI_THREAD_MULTIPLE (MPI_Abort is called
// from the watchdog thread while another thread is inside MPI); without it, arm() does nothing.
// Deliberately not used for point-to-point: Request waits poll and name the silent peer themselves.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

namespace scalebench::comm {

class MpiWatchdog {
 public:
  explicit MpiWatchdog(bool enabled) : enabled_(enabled) {}
  ~MpiWatchdog();  // stops the thread (started on first arm)
  MpiWatchdog(const MpiWatchdog&) = delete;
  MpiWatchdog& operator=(const MpiWatchdog&) = delete;

  // Registers a blocking operation; returns a token for disarm (0 when disabled).
  std::uint64_t arm(double timeout_s, const char* op, std::size_t count, int rank);
  void disarm(std::uint64_t token);
  bool enabled() const { return enabled_; }

 private:
  struct Entry {
    std::chrono::steady_clock::time_point deadline;
    double timeout_s;
    const char* op;
    std::size_t count;
    int rank;
  };
  void loop();

  bool enabled_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::uint64_t, Entry> live_;
  std::uint64_t next_ = 1;
  bool stop_ = false;
  std::thread thread_;
};

// RAII: arms on construction, disarms on destruction.
class WatchedCall {
 public:
  WatchedCall(MpiWatchdog& w, double timeout_s, const char* op, std::size_t count, int rank)
      : w_(w), token_(w.arm(timeout_s, op, count, rank)) {}
  ~WatchedCall() { w_.disarm(token_); }
  WatchedCall(const WatchedCall&) = delete;
  WatchedCall& operator=(const WatchedCall&) = delete;

 private:
  MpiWatchdog& w_;
  std::uint64_t token_;
};

}  // namespace scalebench::comm
