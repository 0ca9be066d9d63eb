// sweep.h — `scalebench sweep`: runs every point of a spec, one after another, each as its own
// process (launch.h), printing the child's lines prefixed "[3/12] unet ring N=4 ". Run files go
// to <output>/runs/<run_id>.h5; the spec is copied to <output>/study.toml.
//   - a point whose run file already says ok is skipped, so a rerun finishes an interrupted study;
//   - a failed point (non-zero exit, signal, a strategy not in this build) is recorded as failed
//     with the child's last stderr line, and the study goes on;
//   - a preempted point (the child exited 75 with its run file saying preempted — SIGUSR1, which
//     this process passes on to the running child) ends the sweep: the allocation is ending, so no
//     further point is launched; outcome.preempted is set (`scalebench sweep` exits 75) and a rerun
//     runs that point again;
//   - a dataset recipe is generated first when its file is missing.
// --launcher slurm hands the spec to slurm_submit.h instead (scripts + sbatch; nothing runs here).
#pragma once

#include <iosfwd>
#include <string>

#include "harness/study/spec.h"

namespace scalebench::study {

struct SweepOptions {
  std::string launcher;      // "" = the spec's
  bool dry_run = false;      // print the points and their commands, run nothing
  std::string exe;           // the scalebench binary for the children ("" = this one)
  std::string profile;       // slurm: the cluster profile ("" = the spec's [study] profile)
};

struct SweepOutcome {
  int points = 0, ok = 0, skipped = 0, failed = 0, preempted = 0;
  bool submitted = false;    // slurm: jobs were submitted (their outcomes come later: scalebench status)
};

SweepOutcome run_sweep(const SweepSpec& spec, const SweepOptions& opt, std::ostream& out);

}  // namespace scalebench::study
