// slurm/point.h — `scalebench slurm-point <study> --group G --repetition R`, what a point's sbatch
// script runs inside its allocation: skip the repetition when its run file already says ok (a
// requeued job whose point had finished), else run the point's training step (slurm/script.h
// step_command: srun --mpi=pmix … or mpirun …) and settle it like the local launcher does
// (run_point.h). USR1 sent to this process is passed on to the step (preemption, docs/slurm.md).
// Reads the study's own copies: <study>/study.toml and <study>/slurm/profile.toml.
#pragma once

#include <iosfwd>
#include <string>

namespace scalebench::study::slurm {

// Exit code for the job script: 0 ok (or ok before), 1 failed, 75 preempted (the script requeues).
int run_slurm_point(const std::string& study_dir, int group, int repetition, std::ostream& out);

}  // namespace scalebench::study::slurm
