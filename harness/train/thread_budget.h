// thread_budget.h — the threads a rank of a CPU run uses when --threads is 0 (the default), decided
// from the affinity masks of every rank on its host, and what every rank of the job got, for the
// run file's context (`rank_threads`).
//
// The rule: each CPU in the rank's mask counts 1/k, where k is the number of ranks on the same host
// whose masks hold that CPU; the sum, rounded down, at least 1. Ranks that share a machine's CPUs
// (mpirun --bind-to none, srun without binding: every mask alike) divide them, C/T each; ranks the
// launcher already gave CPUs of their own (srun --cpus-per-task=C --cpu-bind=cores, mpirun
// --map-by slot:PE=C) keep all C. A count of ranks on the host (OMPI_COMM_WORLD_LOCAL_SIZE,
// SLURM_NTASKS_PER_NODE) cannot tell those two apart — it gave C/T to ranks with C CPUs each — and
// Slurm's describes the job's allocation, not the step that runs.
// Not here: setting the threads (kernels/cpu/blas_threads.h); mirrored's device threads (one
// process: its mask divided among them, trainer.cpp); the oversubscription warning (trainer.cpp).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "harness/comm/communicator.h"

namespace scalebench {

struct RankCpus {
  std::string host;
  std::vector<int> cpus;  // the affinity mask, ascending CPU numbers
};

// The rule above for ranks[me], among every rank of the job (only those on its host count).
int shared_cpu_budget(const std::vector<RankCpus>& ranks, std::size_t me);

// Collective over `world`: every rank's host name and mask, in rank order.
std::vector<RankCpus> gather_rank_cpus(comm::Communicator& world);

// "rank 0 on h: 2 threads, CPUs 0-1; rank 1 on h: …" (the first 64 ranks, then how many more).
std::string describe_rank_threads(const std::vector<RankCpus>& ranks, const std::vector<int>& threads);

// What train() chose for this job's ranks (describe_rank_threads), for the recorder in the same
// process; "" until set (single and mirrored runs: one process, whose budget thread_budget says).
void set_rank_threads_note(std::string note);
std::string rank_threads_note();

}  // namespace scalebench
