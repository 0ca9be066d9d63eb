// sweep.h — `scalebench sweep`: runs every point of a spec, one after another, each as its own
// process (launch.h), printing the child's lines prefixed "[3/12] unet ring N=4 ". Run files go
// to <output>/runs/<run_id>.h5; the spec is copied to <output>/study.toml.
//   - a point whose run file already says ok is skipped, so a rerun finishes an interrupted study;
//   - a failed point (non-zero exit, signal, a strategy not in this build) is recorded as failed
//     with the child's last stderr line, and the study goes on;
//   - a dataset recipe is generated first when its file is missing.
// Not here: Slurm submission (--launcher slurm is refused until the Slurm launcher lands).
#pragma once

#include <iosfwd>
#include <string>

#include "harness/study/spec.h"

namespace scalebench::study {

struct SweepOptions {
  std::string launcher;      // "" = the spec's
  bool dry_run = false;      // print the points and their commands, run nothing
  std::string exe;           // the scalebench binary for the children ("" = this one)
};

struct SweepOutcome {
  int points = 0, ok = 0, skipped = 0, failed = 0;
};

SweepOutcome run_sweep(const SweepSpec& spec, const SweepOptions& opt, std::ostream& out);

}  // namespace scalebench::study
