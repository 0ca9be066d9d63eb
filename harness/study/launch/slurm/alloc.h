// slurm/alloc.h — `scalebench slurm-sweep <study>`, what the one job of `sweep --launcher slurm-alloc`
// runs inside its allocation: the whole sweep, point by point in the local launcher's order
// (repetitions interleaved), each point one srun step placed on its own nodes of the allocation
// (slurm/script.h step_command, StepIn::allocation), so N = 1 and N = K run on the same nodes.
// Everything else is the local launcher's (launch/launcher.h run_points_here): ok points skipped (a
// resubmitted allocation runs only what is not ok yet), failures recorded, USR1 passed on to the
// running step (preempted: exit 75, the script requeues the job), SIGTERM ends the sweep after
// recording the running point. Reads the study's own copies: <study>/study.toml and
// <study>/slurm/profile.toml. Not here: the script (slurm/script.h), its submission (slurm/submit.h).
#pragma once

#include <iosfwd>
#include <string>

namespace scalebench::study::slurm {

// Exit code for the job script: 0 every point ok, 1 a point failed, 75 preempted (requeue).
int run_slurm_sweep(const std::string& study_dir, std::ostream& out);

}  // namespace scalebench::study::slurm
