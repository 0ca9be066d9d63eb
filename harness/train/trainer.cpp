// trainer.cpp — train(): chooses the transport the strategy needs and runs train_rank() on every
// rank. Errors before training starts are the same on every rank (bad data, a configuration that
// differs between ranks) and end the process normally; an error on one rank mid-run ends the whole
// job through the communicator's abort, naming the rank, so no peer waits for it.
#include "harness/train/trainer.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <ostream>

#include <fmt/format.h>

#include "harness/comm/communicator.h"
#include "harness/comm/consistency.h"
#include "harness/comm/gpu_world.h"
#include "harness/comm/mpi_comm.h"
#include "harness/comm/threads_comm.h"
#include "harness/strategy/strategy.h"
#include "harness/train/cpu_warnings.h"
#include "harness/train/gpu_placement.h"
#include "harness/train/launch_env.h"
#include "harness/train/preemption.h"
#include "harness/train/rank_state.h"
#include "harness/train/thread_budget.h"
#include "harness/train/train_rank.h"
#include "kernels/common/check.h"
#include "kernels/cpu/blas_core.h"
#include "kernels/cpu/blas_threads.h"
#include "kernels/cuda/device.h"  // CUDA builds: kernels/cuda; others: kernels/nocuda (no device)

namespace scalebench {
namespace {

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

// Threads of a process that runs alone (single) or holds every device as a thread (mirrored):
// --threads, else its affinity mask (not the machine's core count: under Slurm or taskset they
// differ) shared among those device threads. Ranks of their own: rank_threads below.
int blas_threads_for(const TrainConfig& cfg, int threads_in_process) {
  if (cfg.threads > 0) return cfg.threads;
  return std::max(1, cpu::usable_cpus() / std::max(1, threads_in_process));
}

// One line when the ranks (or worker threads) want more CPUs than they may use: they then
// time-slice, and the run measures the oversubscription rather than the strategy. `cpus` is what
// they share (the affinity masks of the ranks on rank 0's host, or of this process).
void warn_if_oversubscribed(std::ostream& log, int ranks, int threads_per_rank, int cpus, const char* one,
                            const char* many) {
  if (ranks <= 0 || cpus <= 0 || ranks * threads_per_rank <= cpus) return;
  const char* what = ranks == 1 ? one : many;
  warn_cpu(log, fmt::format("{} {} x {} thread{} on {} CPU{} of {}: {} outnumber the cores, so they time-slice and "
                            "the timings measure the oversubscription (fewer ranks, --threads 1, or more CPUs per task)",
                            ranks, what, threads_per_rank, threads_per_rank == 1 ? "" : "s", cpus, cpus == 1 ? "" : "s",
                            comm::hostname(), ranks > cpus ? many : "the threads"));
}

// Processes with a device each: every rank's mask (collective), the threads each takes
// (thread_budget.h), recorded for rank 0's run file; warns (rank 0) when the ranks on its host
// want more threads than the CPUs their masks hold together.
void set_rank_threads(const TrainConfig& cfg, comm::Communicator& world, bool cuda, std::ostream& log) {
  const std::vector<RankCpus> ranks = gather_rank_cpus(world);
  std::vector<int> threads(ranks.size());
  for (std::size_t r = 0; r < ranks.size(); ++r) threads[r] = cfg.threads > 0 ? cfg.threads : shared_cpu_budget(ranks, r);
  cpu::set_blas_threads(threads[std::size_t(world.rank())]);
  set_rank_threads_note(describe_rank_threads(ranks, threads));
  if (world.rank() != 0) return;
  // GPU ranks count one thread each: their CPU work is the driving, not BLAS.
  int on_host = 0, wanted = 0;
  std::vector<int> cpus;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    if (ranks[r].host != ranks[0].host) continue;
    ++on_host;
    wanted = std::max(wanted, cuda ? 1 : threads[r]);
    cpus.insert(cpus.end(), ranks[r].cpus.begin(), ranks[r].cpus.end());
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  warn_if_oversubscribed(log, on_host, wanted, int(cpus.size()), "rank", "ranks");
}

// One line when OpenBLAS runs narrower vector kernels than this CPU has (a user's OPENBLAS_CORETYPE,
// a re-execution that failed): the run is valid, its throughput is not the machine's.
void warn_if_slow_blas_core(const TrainConfig& cfg, std::ostream& log) {
  if (cfg.backend != Backend::cpu) return;
  if (const std::string why = cpu::blas_core_shortfall(); !why.empty()) warn_cpu(log, why);
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
      warn_if_oversubscribed(log, cfg.devices, cpu::blas_threads(), cpu::usable_cpus(), "worker thread", "worker threads");
      warn_if_slow_blas_core(cfg, log);
      comm::ThreadsWorld::run(cfg.devices, rank_main, {.timeout_s = cfg.comm_timeout_s});
    }
    return first;
  }
  if (st.processes == Processes::per_device) {
    comm::MpiSession session;
    auto world = comm::make_mpi_world({.timeout_s = cfg.comm_timeout_s});
    check_slurm_ranks(*world);
    comm::succeed_everywhere(*world, require_cuda_device);
    const bool lead = world->rank() == 0;
    // Collective (every rank gathers the masks); rank 0 speaks for its own host.
    set_rank_threads(cfg, *world, cuda, lead ? log : quiet);
    if (lead) warn_if_slow_blas_core(cfg, log);
    const comm::NodeMap nodes = comm::make_node_map(*world);
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
  warn_if_oversubscribed(log, 1, cpu::blas_threads(), cpu::usable_cpus(), "rank", "ranks");
  warn_if_slow_blas_core(cfg, log);
  return train_rank(cfg, nullptr, log, observer, provenance);
}

}  // namespace scalebench
