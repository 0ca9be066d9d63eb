// context.h — what a run ran on and with, for the run file's /context group (DESIGN §6), and the
// launcher-provided world size and rank.
// Captured once at start-up by rank 0. Deliberately cheap and failure-tolerant: anything that
// cannot be found is recorded as "unknown" rather than failing the run.
//   git: `git rev-parse HEAD` and `git status --porcelain --untracked-files=no` at run time in the
//        source tree that holds the binary (found by walking up from /proc/self/exe); git_sha_build
//        is the configure-time sha. A binary outside any checkout records git_dirty "unknown".
//   build_type: from the compiler's own macros (__OPTIMIZE__, NDEBUG) — what the code really is —
//        rather than CMake's name for it.
//   mpi_version: MPI_Get_library_version looked up in the running process (callable before
//        MPI_Init); "not linked" when no MPI library is loaded.
//   environment: SLURM_*, NCCL_*, OMPI_COMM_WORLD_*, PMI_*, and the thread-count variables, one
//        KEY=VALUE per line, sorted.
//   the machine type: host_fingerprint.h's fields and their hash (host_fingerprint); the noise a
//        run ran under is added at its end (run_noise.h, the recorder).
#pragma once

#include <string>
#include <vector>

#include "harness/record/table.h"

namespace scalebench::record {

Attrs capture_context(const std::vector<std::string>& argv);

// World size given by an MPI launcher (Open MPI's mpirun, or a PMI-1/2 launcher such as MPICH's
// or srun --mpi=pmi2), or 0 when the process was started directly. The rank also honours
// SLURM_PROCID (so that only task 0 of an srun step records), else -1. Read from the launcher's
// environment because the run's world size (part of its id) and the recording rank are needed
// before any communicator exists.
int launcher_world_size();
int launcher_rank();

// The executable of this process (from /proc/self/exe).
std::string self_executable();

// Current UTC time as ISO 8601 ("2025-01-31T12:34:56Z").
std::string utc_now();

}  // namespace scalebench::record
