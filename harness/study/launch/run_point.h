// run_point.h — run one point's command as a child process and settle its outcome: stream the
// child's lines with a prefix ("[3/12] unet ring N=4 ..."), check the run file it wrote, and when the
// child failed without recording it (killed, crashed before the recorder started, mpirun error),
// mark the run file failed with the most telling line of the child's stderr. Shared by the local
// launcher (sweep.cpp) and the Slurm job step (slurm/point.cpp).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "harness/record/run_config.h"
#include "harness/study/launch/subprocess.h"

namespace scalebench::study {

// preempted: the child exited 75 (SIGUSR1, harness/train/preemption.h) and its run file says
// preempted — not marked failed; a rerun of the sweep (or a requeued job) runs the point again.
// A point this process stopped (a stop signal while the child ran, subprocess.h) that did not end
// ok or preempted is failed, recorded as "stopped by SIGTERM to the sweep (<how it ended>)".
enum class PointResult { ok, failed, preempted };

// True when `run_file` exists, is readable and says status ok (a point to skip).
bool run_file_ok(const std::string& run_file);

// What a point's run file says before a sweep (re)runs it: none (no file), ok (skip it), live (it
// says running and its writer is alive — record/liveness.h: leave it alone), rerun (failed,
// preempted, unreadable, or running with its writer dead or unknown). `why`: for live, who
// runs it; for rerun of a running file, how its last run was judged.
struct PriorRun {
  enum class Kind { none, ok, live, rerun } kind = Kind::none;
  std::string why;
  bool here = false;  // live, and its writer runs on this machine (the same host since its last boot)
};
PriorRun prior_run(const std::string& run_file);

// "SIGTERM" for the stop signals, else "signal N".
std::string signal_name(int sig);

PointResult run_point(const record::RunConfig& c, const std::vector<std::string>& cmd, const std::string& run_file,
                      const std::string& prefix, std::ostream& out);

// A point whose child ran as a logged child (start_logged_child, subprocess.h: ab's second side of
// a slice pair): prints its log's lines with the prefix and settles it as run_point does.
PointResult settle_point(const record::RunConfig& c, const ChildExit& ex, const std::vector<std::string>& log_lines,
                         const std::vector<std::string>& cmd, const std::string& run_file, const std::string& prefix,
                         std::ostream& out);

}  // namespace scalebench::study
