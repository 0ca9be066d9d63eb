// launch/command.h — how one point becomes a command line on this host. The strategy's traits
// (harness/strategy/strategy_traits.h) say how many processes: one (`scalebench train … --devices N`)
// or one MPI rank per device plus extra ranks (`mpirun -np N+extra --oversubscribe scalebench train …`,
// world size and rank from the MPI launcher). The options come from the field tables, so the child
// recomputes the same run id. Slurm's step commands (slurm/script.h) reuse train_args().
#pragma once

#include <string>
#include <vector>

#include "harness/record/run_config.h"

namespace scalebench::study {

// The `train` options that reproduce the point exactly (the child recomputes the same run id).
std::vector<std::string> train_args(const record::RunConfig& c, const std::string& runs_dir);

// The whole command: `exe` is the scalebench binary. Adds --allow-run-as-root to mpirun when this
// process runs as root (Open MPI refuses otherwise; containers often run as root).
std::vector<std::string> launch_command(const record::RunConfig& c, const std::string& exe,
                                        const std::string& runs_dir);

// For printing: the words joined, quoted where the shell would need it.
std::string join_command(const std::vector<std::string>& argv);

}  // namespace scalebench::study
