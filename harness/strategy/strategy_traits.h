// strategy_traits.h — what each data-parallel strategy is, one row per strategy (DESIGN §4): how a
// point of N devices is launched, how many extra ranks it needs, which backends and options it
// takes, which allreduce it runs. The CLI's help and validation, the sweep expansion, the local and
// Slurm launchers, the trainer's transport choice and the recorder's device count all read this
// table; nothing else lists strategies or compares their names.
// What it deliberately does not do: construct a strategy (strategy.cpp) or know command lines.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "harness/comm/allreduce.h"
#include "kernels/common/enum_names.h"
#include "models/ctx.h"

namespace scalebench {

enum class StrategyKind : std::uint8_t { single, mirrored, multiworker, ring, hierarchical, ps_sync, ps_async };

// How the N devices of a point become processes.
enum class Processes : std::uint8_t {
  one,         // one process: single (N = 1), mirrored (N threads on the CPU, N GPUs on cuda)
  per_device,  // one MPI rank per device (mpirun / srun), plus extra_ranks
};

enum class Exchange : std::uint8_t {
  none,        // single: no gradient exchange
  allreduce,   // synchronous: every worker ends a step with the same weights
  server,      // parameter server: workers push gradients, pull weights
};

struct StrategyTraits {
  StrategyKind kind;
  std::string_view name;         // the CLI/TOML/run-file name
  Processes processes;
  bool multi_device;             // false: runs at N = 1 only (single)
  int extra_ranks;               // ranks beyond the N workers (a parameter server's server rank)
  Exchange exchange;
  comm::AllreduceAlgo algo;      // allreduce strategies: which algorithm (native = the transport's own)
  bool cpu, cuda;                // backends it runs on
  bool compression;              // --compression bf16|fp16 allowed (our algorithms pack the wire)
  bool overlap;                  // buckets can be exchanged while backward runs (--bucket-mb, --no-overlap)
  bool staleness;                // --staleness applies (bounded-staleness asynchronous server)
  std::string_view transport;    // for help and docs: what moves the gradients
  std::string_view mirrors;      // the practice it reproduces
  // Its place in `scalebench project`'s table (1 first); 0: not projected (a single device, one
  // process with no network between its devices, or asynchronous, which the model does not time).
  int project_row = 0;
};

inline constexpr std::array<StrategyTraits, 7> kStrategies{{
    {StrategyKind::single, "single", Processes::one, false, 0, Exchange::none, comm::AllreduceAlgo::native,
     true, true, false, false, false, "none", "the 1-device baseline every efficiency divides by"},
    {StrategyKind::mirrored, "mirrored", Processes::one, true, 0, Exchange::allreduce, comm::AllreduceAlgo::native,
     true, true, false, true, false, "threads (cpu), an NCCL group of the process's GPUs (cuda)",
     "tf.distribute.MirroredStrategy"},
    {StrategyKind::multiworker, "multiworker", Processes::per_device, true, 0, Exchange::allreduce,
     comm::AllreduceAlgo::native, true, true, false, true, false, "MPI_Allreduce (cpu), ncclAllReduce (cuda)",
     "MultiWorkerMirroredStrategy, PyTorch DDP", 3},
    {StrategyKind::ring, "ring", Processes::per_device, true, 0, Exchange::allreduce, comm::AllreduceAlgo::ring,
     true, true, true, true, false, "our ring allreduce over MPI (cpu) or NCCL send/recv (cuda)", "Horovod", 1},
    {StrategyKind::hierarchical, "hierarchical", Processes::per_device, true, 0, Exchange::allreduce,
     comm::AllreduceAlgo::hierarchical, true, true, true, true, false,
     "reduce in node, ring across node leaders, broadcast in node", "Horovod hierarchical allreduce", 2},
    {StrategyKind::ps_sync, "ps-sync", Processes::per_device, true, 1, Exchange::server, comm::AllreduceAlgo::native,
     true, true, false, false, false, "MPI to one server rank (the last); cuda: staged through host memory",
     "Keras ParameterServerStrategy", 4},
    {StrategyKind::ps_async, "ps-async", Processes::per_device, true, 1, Exchange::server,
     comm::AllreduceAlgo::native, true, true, false, false, true,
     "MPI to one server rank, bounded staleness; cuda: staged through host memory",
     "Keras ParameterServerStrategy (async)"},
}};

constexpr const StrategyTraits& traits(StrategyKind k) {
  for (const auto& t : kStrategies)
    if (t.kind == k) return t;
  return kStrategies[0];  // unreachable: every kind has a row (checked below)
}

namespace detail {
constexpr std::array<EnumEntry<StrategyKind>, kStrategies.size()> strategy_names() {
  std::array<EnumEntry<StrategyKind>, kStrategies.size()> a{};
  for (std::size_t i = 0; i < kStrategies.size(); ++i) a[i] = {kStrategies[i].kind, kStrategies[i].name};
  return a;
}
constexpr bool every_kind_has_its_row() {
  for (std::size_t i = 0; i < kStrategies.size(); ++i)
    if (std::size_t(kStrategies[i].kind) != i) return false;
  return true;
}
static_assert(every_kind_has_its_row(), "kStrategies rows must follow StrategyKind's order");
}  // namespace detail

template <>
struct EnumNames<StrategyKind> {
  static constexpr std::array<EnumEntry<StrategyKind>, kStrategies.size()> entries = detail::strategy_names();
};

// Ranks a point of `devices` devices launches (1 for one-process strategies).
constexpr int launched_ranks(StrategyKind k, int devices) {
  const auto& t = traits(k);
  return t.processes == Processes::one ? 1 : devices + t.extra_ranks;
}
// Devices (data-parallel workers) in a job of `ranks` launched ranks with `devices_per_rank` each.
constexpr int workers_of(StrategyKind k, int ranks, int devices_per_rank) {
  const auto& t = traits(k);
  return t.processes == Processes::one ? devices_per_rank : std::max(1, ranks - t.extra_ranks);
}
bool runs_on(StrategyKind k, Backend b);
// "single, mirrored, ..." — the strategies that run on b, or that have a trait (e.g.
// &StrategyTraits::compression), for help texts and errors.
std::string strategies_on(Backend b, std::string_view sep = ", ");
std::string strategies_with(bool StrategyTraits::*trait, std::string_view sep = ", ");
// For `train --help`: one clause per strategy, "ring: N ranks; ps-sync: N ranks + 1 server, cpu only".
std::string strategy_help();

}  // namespace scalebench
