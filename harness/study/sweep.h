// sweep.h — `scalebench sweep`: runs every point of a spec, one after another, each as its own
// process (launch/command.h), printing the child's lines prefixed "[3/12] unet ring N=4 ". Run files go
// to <output>/runs/<run_id>.h5; the spec is copied to <output>/study.toml.
//   - one sweep at a time per study folder: <output>/.lock is flock'ed for the whole sweep (local)
//     or the submission (slurm); a second sweep into the folder fails with one line naming the
//     holder's pid and host. The lock dies with its holder, so a stale .lock never blocks;
//   - a point whose run file already says ok is skipped, so a rerun finishes an interrupted study;
//   - a point whose run file says running and whose writer is alive (record/liveness.h: another
//     process, e.g. a Slurm job or a `train -o` by hand) is left alone with one line and the sweep
//     exits 1; one whose writer died is run again;
//   - a failed point (non-zero exit, signal, a strategy not in this build) is recorded as failed
//     with the child's last stderr line, and the study goes on;
//   - a preempted point (the child exited 75 with its run file saying preempted — SIGUSR1, which
//     this process passes on to the running child) ends the sweep: the allocation is ending, so no
//     further point is launched; outcome.preempted is set (`scalebench sweep` exits 75) and a rerun
//     runs that point again;
//   - SIGTERM, SIGINT or SIGHUP to the sweep goes to the running point's whole process group (each
//     point runs in its own), SIGKILL after 20 s; the point is recorded failed ("stopped by SIGTERM
//     to the sweep") unless it recorded itself, no further point is launched, and the sweep exits
//     128 + the signal;
//   - a dataset recipe is generated first when its file is missing.
// Launchers (launch/launcher.h): local (launch/local.cpp) runs the points here as above; slurm
// (launch/slurm/) writes one sbatch script per point and submits them; slurm-alloc submits one job
// whose allocation runs the loop above with srun steps (slurm/alloc.h); nothing runs here.
#pragma once

#include <iosfwd>

#include "harness/study/launch/launcher.h"
#include "harness/study/spec/spec.h"

namespace scalebench::study {

// The checks that hold for every launcher, before anything runs: the dataset exists or has a
// recipe, and every model builds for the data's shape (an unknown model option fails here, not in
// each point). Throws naming the spec.
void check_sweep_inputs(const SweepSpec& spec);

// Checks what holds for every launcher (the dataset exists or has a recipe), then runs the
// launcher the options name, or else the spec's.
SweepOutcome run_sweep(const SweepSpec& spec, const SweepOptions& opt, std::ostream& out);

}  // namespace scalebench::study
