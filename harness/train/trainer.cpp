// trainer.cpp — train(): chooses the transport the strategy needs and runs train_rank() on every
// rank. Errors before training starts are the same on every rank (bad data, a configuration that
// differs between ranks) and end the process normally; an error on one rank mid-run ends the whole
// job through the communicator's abort, naming the rank, so no peer waits for it.
#include "harness/train/trainer.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <ostream>
#include <thread>

#include <fmt/format.h>

#include "harness/comm/communicator.h"
#include "harness/comm/consistency.h"
#include "harness/comm/gpu_world.h"
#include "harness/comm/mpi_comm.h"
#include "harness/comm/threads_comm.h"
#include "harness/strategy/strategy.h"
#include "harness/train/gpu_placement.h"
#include "harness/train/launch_env.h"
#include "harness/train/preemption.h"
#include "harness/train/rank_state.h"
#include "harness/train/train_rank.h"
#include "kernels/common/check.h"
#include "kernels/cpu/blas_threads.h"
#include "kernels/cuda/device.h"  // CUDA builds: kernels/cuda; others: kernels/nocuda (no device)

namespace scalebench {
namespace {

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

// Threads per rank (OpenBLAS and oneDNN): --threads, else the CPUs this process may use (its
// affinity mask, not the machine's core count: under Slurm or taskset they differ) shared among the
// ranks that run on this host (kernels/cpu/blas_threads.h).
int blas_threads_for(const TrainConfig& cfg, int ranks_on_host) {
  if (cfg.threads > 0) return cfg.threads;
  return std::max(1, cpu::usable_cpus() / std::max(1, ranks_on_host));
}

// One line when the ranks (or worker threads) on this host want more CPUs than it has: they then
// time-slice, and the run measures the oversubscription rather than the strategy. `cpus` is what
// they share: the host's online CPUs for processes, this process's affinity mask for threads.
void warn_if_oversubscribed(std::ostream& log, int ranks, int threads_per_rank, int cpus, const char* what) {
  if (ranks <= 0 || cpus <= 0 || ranks * threads_per_rank <= cpus) return;
  log << fmt::format("train: warning: {} {} x {} thread{} on {} CPU{} of {}: {} outnumber the cores, so they "
                     "time-slice and the timings measure the oversubscription (fewer ranks, --threads 1, or more "
                     "CPUs per task)\n",
                     ranks, what, threads_per_rank, threads_per_rank == 1 ? "" : "s", cpus, cpus == 1 ? "" : "s",
                     comm::hostname(), ranks > cpus ? what : "the threads")
      << std::flush;
}

}  // namespace

TrainResult train(const TrainConfig& cfg, std::ostream& log, TrainObserver* observer, const trace::Provenance* provenance) {
  install_preemption_handler();  // again after MPI_Init (train_rank): a stray SIGUSR1 must not kill a run
  cfg.validate();
  cfg.require_this_build();
  // Before any CUDA call fails with the runtime's own words ("CUDA driver version is insufficient"
  // on a machine with the toolkit but no GPU), as commbench --transport nccl does. A process per
  // device checks once its world is up (a node without a GPU is one line for the job, not a rank
  // that exits before the others could hear why).
  const auto require_cuda_device = [&] {
    if (cfg.backend != Backend::cuda) return;
    const cuda::DeviceAvailability gpus = cuda::device_availability();
    SB_REQUIRE(gpus.count > 0, "--backend cuda: no CUDA device is visible to this process (no GPU, or no driver; the "
               "CUDA runtime says: {}): run it on a GPU node, or train with --backend cpu", gpus.reason);
  };
  std::ostream quiet(nullptr);  // other ranks' log: discarded
  // On GPUs (cuda) gradients and weights stay on the devices and move over NCCL
  // (harness/comm/nccl/comm.h) when every rank has a GPU of its own: mirrored drives one GPU per
  // thread, the other strategies one GPU per process. Where ranks share a GPU (or --transport
  // staged) they run over threads or MPI and each rank stages its device buffers through host
  // memory (gpu_placement.h).
  const bool cuda = cfg.backend == Backend::cuda;
  const StrategyTraits& st = cfg.strategy_traits();
  if (st.processes == Processes::one && st.multi_device) {
    require_cuda_device();
    check_slurm_single_process();
    // Before a thread per device is started: the data must hold one global batch for them.
    require_one_global_batch(cfg, data::Dataset(cfg.data).info().n, cfg.devices);
    TrainResult first;
    auto rank_main = [&](comm::Communicator& c) {
      TrainResult r = train_rank(cfg, &c, c.rank() == 0 ? log : quiet, c.rank() == 0 ? observer : nullptr, provenance);
      if (c.rank() == 0) first = std::move(r);
    };
    if (cuda && nccl_for_gpus(cfg, cfg.devices, cuda::device_availability().count, log)) {
      comm::run_gpu_group(cfg.devices, rank_main, {.timeout_s = cfg.comm_timeout_s});
    } else if (cuda) {
      comm::ThreadsWorld::run(cfg.devices, rank_main, {.timeout_s = cfg.comm_timeout_s});
    } else {
      say_staged_on_cpu(cfg, log);
      cpu::set_blas_threads(blas_threads_for(cfg, cfg.devices));
      warn_if_oversubscribed(log, cfg.devices, cpu::blas_threads(), cpu::usable_cpus(), "worker threads");
      comm::ThreadsWorld::run(cfg.devices, rank_main, {.timeout_s = cfg.comm_timeout_s});
    }
    return first;
  }
  if (st.processes == Processes::per_device) {
    comm::MpiSession session;
    auto world = comm::make_mpi_world({.timeout_s = cfg.comm_timeout_s});
    check_slurm_ranks(*world);
    comm::succeed_everywhere(*world, require_cuda_device);
    cpu::set_blas_threads(blas_threads_for(cfg, env_int("OMPI_COMM_WORLD_LOCAL_SIZE", env_int("SLURM_NTASKS_PER_NODE", 1))));
    const bool lead = world->rank() == 0;
    // Collective (every rank builds it); rank 0 speaks for its own host. GPU ranks count one
    // thread each: their CPU work is the driving, not BLAS.
    const comm::NodeMap nodes = comm::make_node_map(*world);
    if (lead)
      warn_if_oversubscribed(log, nodes.local_size(), cuda ? 1 : cpu::blas_threads(),
                             int(std::thread::hardware_concurrency()), "ranks");
    // cuda: the id goes over MPI, the gradients over NCCL — unless ranks share a GPU.
    if (!cuda) say_staged_on_cpu(cfg, lead ? log : quiet);
    std::unique_ptr<comm::Communicator> nccl;
    if (cuda && nccl_for_job(cfg, *world, nodes, lead ? log : quiet))
      nccl = comm::make_gpu_world(*world, {.timeout_s = cfg.comm_timeout_s});
    return train_rank(cfg, nccl ? nccl.get() : world.get(), lead ? log : quiet, lead ? observer : nullptr, provenance);
  }
  require_cuda_device();
  check_slurm_single_process();
  const int launched = env_int("OMPI_COMM_WORLD_SIZE", env_int("PMI_SIZE", 1));
  SB_REQUIRE(launched <= 1, "--strategy single runs one process, but this job was launched with {} ranks", launched);
  cpu::set_blas_threads(blas_threads_for(cfg, 1));
  return train_rank(cfg, nullptr, log, observer, provenance);
}

}  // namespace scalebench
