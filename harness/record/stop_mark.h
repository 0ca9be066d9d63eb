// stop_mark.h — a thread that acts the moment a stop signal (SIGUSR1, SIGTERM, SIGINT;
// harness/train/preemption.h) reaches this process, without waiting for the training to reach the
// step every worker agrees to stop after. The recorder uses it to mark its run file preempted at
// once: mpirun, told to stop, passes SIGTERM to the ranks and SIGKILLs them about a second later
// (Open MPI's odls_base_sigkill_timeout), often before they reach that step and record, which
// left the run file saying `running`.
// What it deliberately does not do: call HDF5 (the library may not be thread-safe; the callback
// writes bytes built beforehand) or decide what the mark says (recorder.cpp).
#pragma once

#include <functional>
#include <thread>

namespace scalebench::record {

class StopMark {
 public:
  StopMark() = default;
  StopMark(const StopMark&) = delete;
  StopMark& operator=(const StopMark&) = delete;
  ~StopMark() { stop(); }
  // Calls on_signal(signal number) once, on its own thread, when the first stop signal arrives
  // (at once when one already has). install_preemption_handler() must have run.
  void start(std::function<void(int)> on_signal);
  // Ends the thread (joins it; a callback under way finishes first). Idempotent.
  void stop() noexcept;

 private:
  std::thread thread_;
  int quit_[2] = {-1, -1};  // stop() writes to quit_[1] to wake the thread
};

}  // namespace scalebench::record
