// gpu_placement.h — which GPU a rank computes on and how its device buffers move: NCCL when every
// rank (or mirrored replica) on a host has a GPU of its own, the staged transport (harness/comm/
// staged.h: through host memory over threads or MPI) where they share one — NCCL refuses two ranks
// on a device — or when --transport staged asks for it. train() picks the world from
// nccl_for_gpus(); each rank then wraps a host communicator with stage() once its device exists.
// What it deliberately does not do: create worlds (trainer.cpp) or record anything (the run's
// TrainResult carries the outcome to the recorder).
#pragma once

#include <memory>
#include <ostream>
#include <string>

#include "harness/comm/communicator.h"
#include "harness/train/train_config.h"
#include "kernels/common/device.h"

namespace scalebench {

// cuda: whether `ranks_on_host` ranks (or replicas) on one host with `gpus` visible GPUs exchange
// over NCCL; says the choice in one line on `log` when they do not. Error when --transport nccl is
// asked of ranks that share a GPU.
bool nccl_for_gpus(const TrainConfig& cfg, int ranks_on_host, int gpus, std::ostream& log);

// cpu with --transport staged: says once that the exchange goes through the staged path (plain copies).
void say_staged_on_cpu(const TrainConfig& cfg, std::ostream& log);

// cuda, one process per device: nccl_for_gpus for the whole job, decided alike on every rank
// (collective over `world`) from the host with the most ranks and the fewest visible GPUs.
bool nccl_for_job(const TrainConfig& cfg, comm::Communicator& world, const comm::NodeMap& nodes, std::ostream& log);

struct RankPlacement {
  int gpu = 0;            // cuda: the device index this rank computes on
  bool staged = false;    // the rank's host communicator is wrapped in a staged transport
  bool shared = false;    // cuda: more ranks on this host than GPUs (a correctness run, not a scaling one)
  int ranks_on_host = 1;  // this rank's host: ranks (threads for mirrored) and visible GPUs
  int gpus = 0;
};

// Collective over `comm` for the mpi transport (the node map); null comm: single, one device.
RankPlacement place_rank(const TrainConfig& cfg, comm::Communicator* comm);

// The communicator the strategy uses: `comm` itself, or (placement.staged) a staged transport over
// it whose copy queues come from `device` (one per communicator, made on the thread that uses it).
std::unique_ptr<comm::Communicator> stage(comm::Communicator& comm, ComputeDevice& device, const TrainConfig& cfg);

// "staged over mpi, 4 ranks share 1 GPU" / "nccl" / "threads": for the run file's context.
std::string describe_transport(const comm::Communicator* comm, const RankPlacement& p);

}  // namespace scalebench
