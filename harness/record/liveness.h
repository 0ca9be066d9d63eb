// liveness.h — telling a live run from a dead one by its run file. A run file says `running` from
// the start until the run ends; a run killed without a chance to write (SIGKILL, OOM, segfault,
// node loss) leaves it saying so for ever. So the file also names its writer (RunOwner: pid and
// the pid's start time, host and boot, Slurm job) and carries a heartbeat: while the run goes, a
// light timer thread refreshes the file's modification time every kHeartbeatSeconds (utimensat,
// no HDF5 call: the library is often built without thread-safety, data/loader.cpp), on top of the
// rewrite after every epoch. The judgement (check_liveness) for a file that says running:
//   1. same host and boot: the pid decides — dead when no such process runs, it is a zombie, or
//      its start time differs (the pid was reused). No clocks involved.
//   2. another host (or a host rebooted since): the heartbeat decides — dead when the file has
//      not been touched for kStaleBeats heartbeats (5 minutes at the default 30 s). The timer
//      beats whatever the training does, so a long epoch is never called dead; the margin covers
//      clock skew between hosts and NFS attribute caching.
//   3. no owner recorded (a file from before these attributes): unknown.
// A suspended run (Slurm SUSPENDED, SIGSTOP) stops beating: callers that know the Slurm job's
// state (study/status.h) ask Slurm before the heartbeat.
#pragma once

#include <cstdint>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace scalebench::record {

inline constexpr int kHeartbeatSeconds = 30;
inline constexpr int kStaleBeats = 10;

// Who writes a run file while it says running (root attributes pid, pid_start, host, boot_id,
// slurm_job_id, heartbeat_s; docs/results-schema.md).
struct RunOwner {
  std::int64_t pid = 0;        // rank 0's process (0: not recorded)
  std::int64_t pid_start = 0;  // its start time in clock ticks after boot (/proc/<pid>/stat field 22)
  std::string host, boot_id;   // gethostname(); /proc/sys/kernel/random/boot_id
  std::string slurm_job;       // "123", "123_4" (array job 123, task 4), "" outside Slurm
  std::int64_t heartbeat_s = 0;  // the file is touched at least this often while running (0: no heartbeat)
};

// This process, as a run file's owner.
RunOwner this_process(std::int64_t heartbeat_s = kHeartbeatSeconds);

enum class Liveness { alive, dead, unknown };
struct LivenessCheck {
  Liveness state = Liveness::unknown;
  std::string why;  // "pid 123 on host h is gone", "heartbeat 7 min old (pid 123 on host h)", ...
};

// True when `o` ran on this host since its last boot (the pid can be checked; rule 1 above).
bool on_this_machine(const RunOwner& o);

// The judgement above for a file that says running; heartbeat_age_s: seconds since the file was
// last touched.
LivenessCheck check_liveness(const RunOwner& o, double heartbeat_age_s);
// Same, reading the age from the file's modification time.
LivenessCheck check_liveness(const RunOwner& o, const std::string& run_file);
// Seconds since `path` was last modified (NaN when it cannot be read).
double seconds_since_modified(const std::string& path);

// The timer thread: touches `path` every `seconds` until stop() (or destruction).
class Heartbeat {
 public:
  Heartbeat() = default;
  Heartbeat(const Heartbeat&) = delete;
  Heartbeat& operator=(const Heartbeat&) = delete;
  ~Heartbeat() { stop(); }
  void start(const std::string& path, int seconds);
  void stop() noexcept;

 private:
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
};

}  // namespace scalebench::record
