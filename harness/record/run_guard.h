// run_guard.h — a small process beside rank 0 of an MPI-launched run that records the end rank 0
// could not: once rank 0 is gone while its run file still says `running`, the guard sets it failed
// with the reason.
//
// Why a process: Open MPI ends a rank with _exit() when the rank loses its launcher, and mpirun,
// interrupted twice within 5 s (an impatient Ctrl-C), exits at once without signalling its ranks:
// they see no SIGTERM, only their connection close. No handler, thread or atexit of rank 0 runs, so
// the stop mark (stop_mark.h) never fires and the file said `running` (issue 48, case 8). Only
// something outside the process can write then.
// How: rank 0 holds the write end of a pipe whose read end only the guard holds; the kernel closes
// it however rank 0 ends (or ~RunGuard does after the run recorded its end), and the guard wakes on
// EOF, waits until the file's writer is dead by liveness.h's judgement, and writes only when the
// file still says running and still names that writer. The guard is `scalebench run-guard` (not
// listed in --help), in its own process group (a terminal's Ctrl-C goes to the job's group), with
// SIGINT, SIGTERM, SIGHUP and SIGUSR1 ignored and its stdio on /dev/null (it holds none of the
// launcher's pipes open); SIGKILL ends it (Slurm's step clean-up), leaving the file to liveness.
// Not here: runs started directly (a killed one keeps `running`, judged dead by liveness.h, and a
// sweep marks it failed with the signal: run_point.cpp); stops rank 0 handles itself (preemption.h).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "harness/record/liveness.h"
#include "harness/record/run_file.h"

namespace scalebench::record {

class RunGuard {
 public:
  RunGuard() = default;
  RunGuard(const RunGuard&) = delete;
  RunGuard& operator=(const RunGuard&) = delete;
  ~RunGuard() { stop(); }
  // Starts the guard for the run file at `path`, written by this process. Best effort: false (and
  // no guard) when the pipe or the process cannot be made.
  bool start(const std::string& path);
  // Closes this end (the run recorded its end: the guard finds it so and exits). Idempotent.
  void stop() noexcept;

 private:
  int fd_ = -1;
  pid_t child_ = -1;
};

// The guard process: `scalebench run-guard <path> <pid>` with the pipe's read end as fd 3. Returns
// its exit status (0 also when there was nothing to do).
int run_guard_main(const std::string& path, std::int64_t pid);

// What the guard records, factored for tests: when `f` still says running, names `pid` as its
// writer and `lv` judges that writer dead, sets status failed with an error naming the reason and
// returns true; otherwise leaves `f` and returns false.
bool mark_writer_gone(RunFile& f, std::int64_t pid, const LivenessCheck& lv);

}  // namespace scalebench::record
