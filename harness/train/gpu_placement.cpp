// gpu_placement.cpp — see gpu_placement.h.
#include "harness/train/gpu_placement.h"

#include <fmt/format.h>

#include <algorithm>

#include "harness/comm/gpu_world.h"
#include "harness/comm/staged.h"
#include "kernels/common/check.h"
#include "kernels/cuda/device.h"  // CUDA builds: kernels/cuda; others: kernels/nocuda (no device)

namespace scalebench {

// The host transport a staged exchange runs over: the strategy's own process shape decides it.
static const char* host_transport_of(const TrainConfig& cfg) {
  return cfg.strategy_traits().processes == Processes::one ? "threads" : "MPI";
}

bool nccl_for_gpus(const TrainConfig& cfg, int ranks_on_host, int gpus, std::ostream& log) {
  const bool shared = ranks_on_host > gpus;
  const bool server = cfg.strategy_traits().exchange == Exchange::server;
  SB_REQUIRE(!(cfg.transport == Transport::nccl && shared),
             "--transport nccl: {} ranks share {} GPU{} on {}, and NCCL allows one rank per GPU; use --transport "
             "staged (or auto) to run them through host memory", ranks_on_host, gpus, gpus == 1 ? "" : "s",
             comm::hostname());
  const bool nccl = cfg.transport == Transport::nccl || (cfg.transport == Transport::automatic && !shared && !server);
  if (!nccl)
    log << fmt::format("train: the staged transport: device buffers through host memory over {}{}{}\n",
                       host_transport_of(cfg), shared ? fmt::format(" ({} ranks share {} GPU{} on {}: a correctness run, not a scaling "
                                            "measurement)", ranks_on_host, gpus, gpus == 1 ? "" : "s", comm::hostname())
                              : "",
                       server && !shared ? " (a parameter server's tagged messages)" : "")
        << std::flush;
  return nccl;
}

bool nccl_for_job(const TrainConfig& cfg, comm::Communicator& world, const comm::NodeMap& nodes, std::ostream& log) {
  int most_on_a_host = 0, fewest_gpus = 1 << 20;
  for (const auto& r : nodes.ranks_of_node) most_on_a_host = std::max(most_on_a_host, int(r.size()));
  for (const std::string& g : world.allgather(std::to_string(cuda::device_availability().count)))
    fewest_gpus = std::min(fewest_gpus, std::stoi(g));
  return nccl_for_gpus(cfg, most_on_a_host, fewest_gpus, log);
}

void say_staged_on_cpu(const TrainConfig& cfg, std::ostream& log) {
  if (cfg.backend != Backend::cpu || cfg.transport != Transport::staged) return;
  log << fmt::format("train: the staged transport: buffers through host blocks over {} (the CPU device: plain "
                     "copies, the path ranks sharing a GPU take)\n",
                     host_transport_of(cfg))
      << std::flush;
}

RankPlacement place_rank(const TrainConfig& cfg, comm::Communicator* comm) {
  RankPlacement p;
  if (comm == nullptr) return p;
  const bool cuda = cfg.backend == Backend::cuda;
  const bool host_transport = !comm->caps().device_buffers;
  p.staged = host_transport && (cuda || cfg.transport == Transport::staged);
  if (!cuda) return p;
  p.gpus = cuda::device_availability().count;
  if (!host_transport) {  // nccl: the GPU its communicator drives, one rank per GPU
    p.gpu = comm::device_of(comm);
    return p;
  }
  int local_rank = comm->rank();
  p.ranks_on_host = comm->size();
  if (std::string(comm->transport()) != "threads") {  // processes: the ranks of this host
    const comm::NodeMap nodes = comm::make_node_map(*comm);
    local_rank = nodes.local_rank;
    p.ranks_on_host = nodes.local_size();
  }
  p.shared = p.ranks_on_host > p.gpus;
  p.gpu = p.gpus > 0 ? local_rank % p.gpus : 0;
  return p;
}

std::unique_ptr<comm::Communicator> stage(comm::Communicator& comm, ComputeDevice& device, const TrainConfig& cfg) {
  const double timeout = cfg.comm_timeout_s;
  return std::make_unique<comm::StagedComm>(comm, [&device, timeout] { return device.stager(timeout); });
}

std::string describe_transport(const comm::Communicator* comm, const RankPlacement& p) {
  if (comm == nullptr) return "none";
  if (!p.staged) return comm->transport();
  std::string s = fmt::format("staged over {}", comm->transport());
  if (p.shared) s += fmt::format(", {} ranks share {} GPU{}", p.ranks_on_host, p.gpus, p.gpus == 1 ? "" : "s");
  return s;
}

}  // namespace scalebench
