// sweep.h — `scalebench sweep`: runs every point of a spec, one after another, each as its own
// process (launch/command.h), printing the child's lines prefixed "[3/12] unet ring N=4 ". Run files go
// to <output>/runs/<run_id>.h5; the spec is copied to <output>/study.toml.
//   - a point whose run file already says ok is skipped, so a rerun finishes an interrupted study;
//   - a failed point (non-zero exit, signal, a strategy not in this build) is recorded as failed
//     with the child's last stderr line, and the study goes on;
//   - a preempted point (the child exited 75 with its run file saying preempted — SIGUSR1, which
//     this process passes on to the running child) ends the sweep: the allocation is ending, so no
//     further point is launched; outcome.preempted is set (`scalebench sweep` exits 75) and a rerun
//     runs that point again;
//   - a dataset recipe is generated first when its file is missing.
// Launchers (launch/launcher.h): local (launch/local.cpp) runs the points here as above; slurm
// (launch/slurm/) writes one sbatch script per point and submits them; nothing runs here.
#pragma once

#include <iosfwd>

#include "harness/study/launch/launcher.h"
#include "harness/study/spec/spec.h"

namespace scalebench::study {

// Checks what holds for every launcher (the dataset exists or has a recipe), then runs the
// launcher the options name, or else the spec's.
SweepOutcome run_sweep(const SweepSpec& spec, const SweepOptions& opt, std::ostream& out);

}  // namespace scalebench::study
