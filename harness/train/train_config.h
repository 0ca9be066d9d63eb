// train_config.h — everything one training run is configured by (the RunConfig of DESIGN §1), as
// typed values: names were parsed to enums at the boundary (the CLI, TOML files, run-file
// attributes: harness/train/train_fields.h, the one table that describes every option), so no
// code below harness/ compares a strategy, backend or precision name.
// What it deliberately does not do: parse text, or know how options are spelled on a command line.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "harness/comm/allreduce.h"
#include "harness/strategy/bucket_size.h"
#include "harness/strategy/strategy_traits.h"
#include "kernels/common/gpu_kernels.h"
#include "kernels/common/precision.h"
#include "models/ctx.h"
#include "models/lr_schedule.h"
#include "models/optimizer.h"

namespace scalebench {

// --class-weights: auto (inverse square-root frequency on segmentation data), none, or given.
// The text is kept as written: it enters run ids, so "1,2" must stay "1,2".
struct ClassWeights {
  enum class Mode { automatic, none, given };
  Mode mode = Mode::automatic;
  std::vector<float> given;  // Mode::given: one weight per class, each finite and >= 0
  std::string text = "auto";
  // Throws scalebench::Error with the problem (no option name: the caller adds where it came from).
  static ClassWeights parse(std::string_view text);
  bool operator==(const ClassWeights& o) const { return text == o.text; }
};

// --on-nonfinite: what a step whose loss, input or gradient is not finite does.
enum class NonFinitePolicy { fail, skip };
template <>
struct EnumNames<NonFinitePolicy> {
  static constexpr std::array<EnumEntry<NonFinitePolicy>, 2> entries{
      {{NonFinitePolicy::fail, "fail"}, {NonFinitePolicy::skip, "skip"}}};
};

// --cuda-graph: the training step captured as a CUDA graph and replayed (harness/train/epoch_graph.cpp).
// auto: where the step can be captured (cuda; otherwise eager, saying why); on: the same, the reason
// printed as a warning when it cannot; off: eager.
enum class CudaGraph { automatic, on, off };
template <>
struct EnumNames<CudaGraph> {
  static constexpr std::array<EnumEntry<CudaGraph>, 3> entries{
      {{CudaGraph::automatic, "auto"}, {CudaGraph::on, "on"}, {CudaGraph::off, "off"}}};
};

// --transport: what moves device buffers between the ranks of a multi-device strategy. auto: NCCL
// where every rank (or mirrored replica) has a GPU of its own, the staged transport where several
// share one (NCCL refuses two ranks on a device), the host transport on the CPU; nccl: NCCL (cuda);
// staged: device buffers through host memory over threads or MPI (harness/comm/staged.h; on the CPU
// the same path with plain copies, which is how the CPU tests drive it).
enum class Transport { automatic, nccl, staged };
template <>
struct EnumNames<Transport> {
  static constexpr std::array<EnumEntry<Transport>, 3> entries{
      {{Transport::automatic, "auto"}, {Transport::nccl, "nccl"}, {Transport::staged, "staged"}}};
};

struct TrainConfig {
  std::string model = "unet:depth=4,base=8";  // model spec (models/spec.h), parsed by the model room
  std::string data;                  // HDF5 dataset (docs/data-format.md)
  // What `data` holds (harness/data/identity.h), filled from the file by whoever computes a run
  // id (record::identify_data); "" when unknown (then it joins no id).
  std::string data_identity;
  StrategyKind strategy = StrategyKind::single;
  Backend backend = Backend::cpu;
  Precision precision = Precision::fp32;  // tf32/bf16: cuda (the CPU trains in fp32)
  Layout layout = Layout::NCHW;           // cuda activations
  bool deterministic = false;        // cuda: deterministic cuDNN algorithms (same losses run to run)
  // cuda: the cuDNN workspace cap in MiB; Find refuses algorithms that need more. The default,
  // kCudnnWorkspaceFromFree (-1), sizes it from the GPU's free memory (kernels/cuda/workspace.h), as
  // DeviceOptions' default does (step_io.cpp checks that they agree).
  static constexpr int kCudnnWorkspaceFromFree = -1;
  static constexpr int kDefaultCudnnWorkspaceMib = kCudnnWorkspaceFromFree;
  static constexpr int kMaxCudnnWorkspaceMib = 1 << 20;  // 1 TiB: a typo guard, not a device limit
  int cudnn_workspace_mib = kDefaultCudnnWorkspaceMib;
  CudaGraph cuda_graph = CudaGraph::automatic;  // cuda: capture the step as a graph (auto|on|off)
  GpuKernels gpu_kernels = GpuKernels::cudnn;   // cuda: batch norm and max pooling kernels (kernels/common/gpu_kernels.h)
  int epochs = 3;
  int batch = 8;                     // per device (per micro-batch with accumulate > 1)
  // Gradient accumulation: an optimizer step sums the gradients of `accumulate` micro-batches of
  // `batch` (each loss scaled by 1/accumulate), so it trains what batch accumulate × batch trains
  // (batch norm aside: statistics are per micro-batch).
  int accumulate = 1;
  double lr = 0.05;
  LrScaling lr_scaling = LrScaling::none;  // in the device count
  double warmup_epochs = 0.0;
  LrDecay lr_decay = LrDecay::cosine;
  OptimizerKind optimizer = OptimizerKind::sgd;
  double momentum = 0.9;
  double weight_decay = 0.0;
  double val_fraction = 0.1;         // the last fraction of the file is held out
  ClassWeights class_weights;
  std::uint64_t seed = 1;
  bool reference_kernels = false;    // the double-accumulating reference instead of BLAS (cpu: backend_traits.h)
  CpuKernels cpu_kernels = CpuKernels::automatic;  // cpu convolutions: auto|blas|onednn (models/ctx.h)
  int threads = 0;                   // BLAS threads; 0 = all cores
  std::int64_t max_steps = 0;        // per epoch, 0 = whole epoch (for quick checks)
  // Train to a target (harness/train/target.h): every worker stops after the step at which the
  // held-out mIoU (segmentation) or accuracy (classification) first reaches it; 0: off, at most one
  // of the two. Checked after every epoch and, with eval_every_steps K > 0, after every K optimizer
  // steps; `epochs` is then the budget.
  double target_miou = 0;
  double target_accuracy = 0;
  std::int64_t eval_every_steps = 0;
  double progress_seconds = 30.0;    // a step progress line at most this often
  // Distributed (harness/strategy): devices in this process (mirrored), fusion bucket, overlap,
  // node grouping (hierarchical), bounded staleness (ps-async), and how long a rank may wait for a
  // peer before the job is ended with an error naming it.
  int devices = 1;
  double bucket_mb = kDefaultBucketMb;
  bool no_overlap = false;
  int ranks_per_node = 0;
  int staleness = 4;
  comm::WireType compression = comm::WireType::f32;  // ring/hierarchical gradient wire type
  // Synchronised batch norm (backend_traits.h; allreduce strategies, a no-op on single): training statistics
  // are the global batch's, so N workers × b equal one device with N·b (docs/strategies.md).
  bool sync_bn = false;
  double comm_timeout_s = 300.0;
  // Non-finite training (harness/train/epoch.cpp): every worker checks its loss (and, with
  // check_inputs, its input batch); a loss above max_loss counts as diverged. The workers agree,
  // then fail — every rank, naming the rank, step and where — or skip the step (no update anywhere),
  // failing after nonfinite_skips skipped steps in a row.
  Transport transport = Transport::automatic;  // multi-device strategies: NCCL, staged or the host transport
  NonFinitePolicy on_nonfinite = NonFinitePolicy::fail;
  int nonfinite_skips = 3;
  double max_loss = 1e4;
  double peak_tflops = 0.0;  // per-device peak for MFU; 0: the GPU datasheet table or the CPU's measured sgemm
  bool check_inputs = false;
  // Checkpoints (harness/train/checkpoint.h): every checkpoint_every optimizer steps (0: only when
  // a run is stopped by a signal) into checkpoint_dir (the run's own folder: the CLI's
  // run_recorded makes it <--checkpoint-dir or the runs folder>/<run_id>.ckpt);
  // resume: auto (continue from the newest complete checkpoint there, if any), none, or a folder.
  std::int64_t checkpoint_every = 0;
  double checkpoint_minutes = 0;  // also once this long since the last checkpoint (0: off)
  std::string checkpoint_dir;
  std::string resume = "auto";
  std::string dump_weights;          // write the final weights (raw f32) to <path>.rank<r> (tests)
  std::string trace;                 // step timeline, Chrome trace events (harness/train/trace.h)

  const StrategyTraits& strategy_traits() const { return traits(strategy); }
  bool has_target() const { return target_miou > 0 || target_accuracy > 0; }
  // Every field's own check (train_fields.cpp) and the rules between fields; throws
  // scalebench::Error naming the option.
  // Not in validate(): a sweep of GPU points may be expanded and written out (dry run, Slurm
  // scripts) by a build without CUDA; only running one needs it.
  void validate() const;
  void require_this_build() const;  // --backend cuda needs a CUDA build
  // Every field that must agree across ranks, as "key=value" lines (compared before the first
  // collective; threads, progress and dump paths may differ and are left out).
  std::string canonical_text() const;
};

}  // namespace scalebench
