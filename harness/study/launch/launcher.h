// launcher.h — how a sweep's points get run: a Launcher takes the expanded spec and either runs
// every point here, one process (or mpirun job) at a time (local.cpp), or writes and submits one
// sbatch job per point, or one job whose allocation runs the whole sweep (slurm/launcher.cpp).
// `scalebench sweep` picks one by name and knows no more.
// What it deliberately does not do: expand specs (spec/), or read results back (analysis/, status.h).
#pragma once

#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/study/launch/launcher_kind.h"
#include "harness/study/spec/spec.h"
#include "harness/train/preemption.h"

namespace scalebench::study {

struct SweepOptions {
  std::optional<LauncherKind> launcher;  // unset: the spec's
  bool dry_run = false;      // print the points and their commands (local) / write the scripts (slurm); run nothing
  std::string exe;           // the scalebench binary for the children ("" = this one)
  std::string profile;       // slurm: the cluster profile ("" = the spec's [study] profile)
  int array_throttle = 0;    // slurm (one job per point): at most this many repetitions of a point at once (0: no cap)
};

struct SweepOutcome {
  int points = 0, ok = 0, skipped = 0, failed = 0, preempted = 0;
  int busy = 0;              // local: points left alone because a live process still runs them
  int stopped = 0;           // local: the stop signal (SIGTERM, SIGINT, SIGHUP) that ended the sweep, else 0
  bool submitted = false;    // slurm: jobs were submitted (their outcomes come later: scalebench status)
  // `scalebench sweep`'s exit status: 128 + the signal when stopped, 75 when preempted (rerun),
  // 1 when a point failed or is still running elsewhere, else 0.
  int exit_code() const { return stopped ? 128 + stopped : preempted ? kExitPreempted : failed || busy ? 1 : 0; }
};

class Launcher {
 public:
  virtual ~Launcher() = default;
  virtual SweepOutcome run(const SweepSpec& spec, const SweepOptions& opt, std::ostream& out) = 0;
};

std::unique_ptr<Launcher> make_local_launcher();
std::unique_ptr<Launcher> make_slurm_launcher();
std::unique_ptr<Launcher> make_slurm_alloc_launcher();
std::unique_ptr<Launcher> make_launcher(LauncherKind kind);

// The command that runs one point from here: the local launcher's launch_command (launch/command.h),
// or, inside a Slurm allocation, its srun step (slurm/script.h step_command).
using PointCommand = std::function<std::vector<std::string>(const record::RunConfig& c, const std::string& runs_dir)>;
// The local launcher's loop (local.cpp; its promises in sweep.h) with the command of each point
// given: what `scalebench slurm-sweep` runs inside the allocation of --launcher slurm-alloc.
SweepOutcome run_points_here(const SweepSpec& spec, const SweepOptions& opt, const PointCommand& command,
                             std::ostream& out);

}  // namespace scalebench::study
