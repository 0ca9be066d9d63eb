// launch_env.h — when a Slurm step launched the ranks (srun, marked by SCALEBENCH_LAUNCHER=srun in
// the step's environment; slurm_script.h sets it), Slurm's view of the job must agree with MPI's:
// SLURM_PROCID = rank, SLURM_NTASKS = world size, SLURM_LOCALID = position among the ranks on the
// node. A mismatch means srun did not hand the ranks to MPI (e.g. --mpi=none: N singletons that
// each think they are rank 0), and the run would silently train N copies — so it is an error.
// Not here: binding devices (the GPU backend binds by the node map's local rank, which this checks).
#pragma once

#include "harness/comm/communicator.h"

namespace scalebench {

// Collective over `world` (every rank gets the same verdict, so no rank trains alone).
// No-op unless SCALEBENCH_LAUNCHER=srun. Throws naming the variable, its value and MPI's.
void check_slurm_ranks(comm::Communicator& world);

// A process that runs alone (single, mirrored): under srun, SLURM_NTASKS must be 1.
void check_slurm_single_process();

}  // namespace scalebench
