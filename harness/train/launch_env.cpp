// launch_env.cpp — Slurm vs MPI rank checks (see launch_env.h).
#include "harness/train/launch_env.h"

#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "harness/comm/consistency.h"
#include "kernels/common/check.h"

namespace scalebench {
namespace {

bool under_srun() {
  const char* v = std::getenv("SCALEBENCH_LAUNCHER");
  return v && std::string(v) == "srun";
}

// The variable's integer value; -1 with `text` set when it is missing or not a number.
int env_int(const char* name, std::string& text) {
  const char* v = std::getenv(name);
  text = v ? v : "(unset)";
  if (!v || !*v) return -1;
  char* end = nullptr;
  const long x = std::strtol(v, &end, 10);
  return *end ? -1 : int(x);
}

}  // namespace

void check_slurm_ranks(comm::Communicator& world) {
  if (!under_srun()) return;
  const comm::NodeMap nodes = comm::make_node_map(world);
  std::string problem, text;
  if (env_int("SLURM_PROCID", text) != world.rank())
    problem = fmt::format("SLURM_PROCID={} but MPI rank {}", text, world.rank());
  else if (env_int("SLURM_NTASKS", text) != world.size())
    problem = fmt::format("SLURM_NTASKS={} but MPI world size {}", text, world.size());
  else if (env_int("SLURM_LOCALID", text) != nodes.local_rank)
    problem = fmt::format("SLURM_LOCALID={} but rank {} is number {} of the ranks on {}", text, world.rank(),
                          nodes.local_rank, comm::hostname());
  const auto all = world.allgather(problem);
  for (std::size_t r = 0; r < all.size(); ++r)
    if (!all[r].empty())  // every rank saw the same list: the same line, printed once
      comm::fail_everywhere(world, fmt::format("rank {}: Slurm and MPI disagree: {} (launch MPI ranks with srun "
                                               "--mpi=pmix, or set launcher = \"mpirun\" in the profile)", r, all[r]));
}

void check_slurm_single_process() {
  if (!under_srun()) return;
  std::string text;
  const int n = env_int("SLURM_NTASKS", text);
  SB_REQUIRE(n == 1, "this strategy runs one process, but srun started SLURM_NTASKS={} of them", text);
}

}  // namespace scalebench
