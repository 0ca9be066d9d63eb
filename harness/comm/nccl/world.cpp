// world.cpp — the one-process-per-GPU job world of the nccl transport: where a process
// sits (launcher variables), which GPU it drives, creating one rank's communicator against the
// deadline, and the unique id handed over a bootstrap Communicator (the mpi transport). The shared-
// file bootstrap is in id_file.cpp.
#include <fmt/format.h>

#include <cstdlib>
#include <cstring>

#include "harness/comm/nccl/check.h"
#include "harness/comm/nccl/comm.h"
#include "harness/comm/nccl/state.h"

namespace scalebench::comm {

namespace nccl_detail {

std::string visible_devices_text() {
  const char* v = std::getenv("CUDA_VISIBLE_DEVICES");
  return v != nullptr ? fmt::format("CUDA_VISIBLE_DEVICES={}", v) : std::string("CUDA_VISIBLE_DEVICES unset");
}

std::shared_ptr<Core> init_rank(const ncclUniqueId& id, int rank, int size, int device, const CommOptions& opts,
                                const std::string& label) {
  cuda::DeviceGuard g(device);
  const auto start = Clock::now();
  ncclComm_t comm = nullptr;
  ncclConfig_t cfg = nonblocking_config();
  const ncclResult_t rc = ncclCommInitRankConfig(&comm, size, id, rank, &cfg);
  if (rc != ncclSuccess && rc != ncclInProgress) {
    if (comm != nullptr) (void)ncclCommAbort(comm);
    throw Error(fmt::format("nccl transport: rank {} of {} (cuda:{} on {}): {}: ncclCommInitRankConfig failed: {}", rank,
                            size, device, hostname(), label, nccl_error_text(rc)));
  }
  SB_CHECK(comm != nullptr, "ncclCommInitRankConfig returned no communicator");
  auto core = std::make_shared<Core>(comm, device, rank, size, opts, nullptr);
  core->wait_ready([&] { return label; }, start,
                   "another rank of the job did not join: it is dead, not started, on another unique id, or could "
                   "not reach rank 0's bootstrap address (NCCL_SOCKET_IFNAME)");
  return core;
}

}  // namespace nccl_detail

using nccl_detail::init_rank;

namespace {

// A non-negative integer, or an Error naming the variable.
int env_count(const char* name, const char* value) {
  char* end = nullptr;
  const long v = std::strtol(value, &end, 10);
  SB_REQUIRE(*value != '\0' && end != nullptr && *end == '\0' && v >= 0 && v < (1L << 24),
             "environment variable {}='{}' is not a non-negative integer", name, value);
  return static_cast<int>(v);
}

}  // namespace

JobPlace job_place_from_env() {
  struct Source {
    const char *rank, *size, *local;
    bool mpi;
  };
  // MPI launchers first: under `mpirun` inside an sbatch allocation every process inherits the
  // batch step's SLURM_PROCID=0.
  static const Source sources[] = {
      {"SCALEBENCH_RANK", "SCALEBENCH_WORLD_SIZE", "SCALEBENCH_LOCAL_RANK", false},
      {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", true},
      {"PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", true},
      {"SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", false},
      {"RANK", "WORLD_SIZE", "LOCAL_RANK", false},
  };
  JobPlace p;
  p.under_mpi = std::getenv("PMIX_RANK") != nullptr;  // srun --mpi=pmix
  for (const auto& s : sources) {
    const char* r = std::getenv(s.rank);
    if (r == nullptr) continue;
    const char* n = std::getenv(s.size);
    SB_REQUIRE(n != nullptr, "environment variable {} is set but {} is not", s.rank, s.size);
    p.rank = env_count(s.rank, r);
    p.size = env_count(s.size, n);
    SB_REQUIRE(p.size >= 1 && p.rank < p.size, "{}={} is not a rank of {}={}", s.rank, p.rank, s.size, p.size);
    if (const char* l = std::getenv(s.local)) {
      p.local_rank = env_count(s.local, l);
      p.local_rank_known = true;
    }
    p.under_mpi = p.under_mpi || s.mpi;
    p.source = fmt::format("{}/{}", s.rank, s.size);
    return p;
  }
  p.source = "no launcher variables";
  return p;
}

int pick_device(int local_rank, int requested) {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    fail_input(fmt::format("nccl transport: no usable CUDA device on {}: {} ({})", hostname(), cudaGetErrorString(e),
                           nccl_detail::visible_devices_text()));
  }
  SB_REQUIRE(n > 0, "nccl transport: no CUDA device on {} ({})", hostname(), nccl_detail::visible_devices_text());
  if (requested >= 0) {
    SB_REQUIRE(requested < n, "nccl transport: device {} was requested but only {} CUDA device(s) are visible on {} ({})",
               requested, n, hostname(), nccl_detail::visible_devices_text());
    return requested;
  }
  if (n == 1) return 0;  // the launcher bound one GPU to this task
  SB_REQUIRE(local_rank >= 0 && local_rank < n,
             "nccl transport: local rank {} has no GPU of its own: {} CUDA devices are visible on {} ({}); run at most "
             "{} ranks per node, one per GPU",
             local_rank, n, hostname(), nccl_detail::visible_devices_text(), n);
  return local_rank;
}

// Every rank reports "O" (ready) or "E<message>"; rank 0 adds the id ("I" + bytes). One allgather over
// the bootstrap, so a failure on any rank fails every rank the same way instead of stranding them.
std::unique_ptr<Communicator> make_nccl_world(Communicator& bootstrap, const NcclOptions& o) {
  SB_REQUIRE(o.comm.timeout_s > 0, "comm timeout must be > 0 s, got {}", o.comm.timeout_s);
  const int rank = bootstrap.rank(), size = bootstrap.size();
  const NodeMap nodes = make_node_map(bootstrap);  // collective: before anything that may throw
  std::string mine(1, 'O');
  int device = -1;
  try {
    device = pick_device(nodes.local_rank, o.device);
    if (rank == 0) {
      ncclUniqueId id;
      NCCL_CHECK(ncclGetUniqueId(&id));
      mine[0] = 'I';
      mine.append(id.internal, sizeof(id.internal));
    }
  } catch (const Error& e) {
    mine = std::string(1, 'E').append(e.what());
  }
  const auto all = bootstrap.allgather(mine);
  for (int r = 0; r < size; ++r) {
    const std::string& s = all[static_cast<std::size_t>(r)];
    if (!s.empty() && s[0] == 'E') throw Error(fmt::format("nccl transport: rank {} could not join: {}", r, s.substr(1)));
  }
  SB_CHECK(all[0].size() == 1 + sizeof(ncclUniqueId), "nccl transport: rank 0 sent a malformed unique id");
  ncclUniqueId id;
  std::memcpy(id.internal, all[0].data() + 1, sizeof(id.internal));
  auto core = init_rank(id, rank, size, device, o.comm,
                        fmt::format("creation (unique id from the {} bootstrap)", bootstrap.transport()));
  return std::make_unique<nccl_detail::NcclComm>(std::move(core), true);
}

NcclBootstrapChoice choose_nccl_bootstrap(const JobPlace& place, const NcclOptions& o) {
  const char* env = std::getenv("SCALEBENCH_NCCL_ID_FILE");
  const std::string file = !o.id_file.empty() ? o.id_file : (env != nullptr ? env : "");
  if (!file.empty()) return {"file", fmt::format("unique id through the file {}", file)};
  if (place.under_mpi) return {"mpi", fmt::format("launched by an MPI launcher ({})", place.source)};
  if (place.size == 1) return {"single", "one process outside any launcher"};
  return {"none", fmt::format("nccl transport: this job has {} processes ({}) but no way to hand out the NCCL unique id: "
                              "launch with mpirun or srun --mpi=pmix, or set SCALEBENCH_NCCL_ID_FILE to a path on a "
                              "file system every rank sees",
                              place.size, place.source)};
}

}  // namespace scalebench::comm
