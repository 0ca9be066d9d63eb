// launch.h — how one point becomes a command line: the strategy → processes mapping lives here
// and only here (DESIGN §4):
//   single, mirrored                       one process: `scalebench train … --devices N`
//   multiworker, ring, hierarchical,       N processes: `mpirun -np N --oversubscribe scalebench train …`
//   ps-sync, ps-async                      (world size and rank come from the MPI launcher)
// Slurm (one sbatch per point, srun --mpi=pmix) will add its own mapping beside launch_command().
#pragma once

#include <string>
#include <vector>

#include "harness/record/run_config.h"

namespace scalebench::study {

bool uses_mpirun(const std::string& strategy);

// The `train` options that reproduce the point exactly (the child recomputes the same run id).
std::vector<std::string> train_args(const record::RunConfig& c, const std::string& runs_dir);

// The whole command: `exe` is the scalebench binary. Adds --allow-run-as-root to mpirun when this
// process runs as root (Open MPI refuses otherwise; containers often run as root).
std::vector<std::string> launch_command(const record::RunConfig& c, const std::string& exe,
                                        const std::string& runs_dir);

// For printing: the words joined, quoted where the shell would need it.
std::string join_command(const std::vector<std::string>& argv);

}  // namespace scalebench::study
