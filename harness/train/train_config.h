// train_config.h — everything one training run is configured by (the RunConfig of DESIGN §1),
// with validation that names the offending option. The CLI fills it; sweeps will generate it.
#pragma once

#include <cstdint>
#include <string>

namespace scalebench {

struct TrainConfig {
  std::string model = "unet:depth=4,base=8";  // the default U-Net: sized for a CPU study
  std::string data;                  // HDF5 dataset (docs/data-format.md)
  std::string strategy = "single";
  std::string backend = "cpu";
  std::string precision = "fp32";   // fp32 | tf32 | bf16 (cuda; the CPU trains in fp32)
  std::string layout = "NCHW";       // cuda activations: NCHW | NHWC
  bool deterministic = false;        // cuda: deterministic cuDNN algorithms (same losses run to run)
  // cuda: the cuDNN workspace cap; Find refuses algorithms that need more. The default is
  // cudnn::Workspace::kDefaultCap (step_io.cpp checks that they agree).
  static constexpr int kDefaultCudnnWorkspaceMib = 512;
  static constexpr int kMaxCudnnWorkspaceMib = 1 << 20;  // 1 TiB: a typo guard, not a device limit
  int cudnn_workspace_mib = kDefaultCudnnWorkspaceMib;
  int epochs = 3;
  int batch = 8;                     // per device
  double lr = 0.05;
  std::string lr_scaling = "none";   // none | linear | sqrt (in the device count)
  double warmup_epochs = 0.0;
  std::string lr_decay = "cosine";   // cosine | constant
  std::string optimizer = "sgd";     // sgd | adamw
  double momentum = 0.9;
  double weight_decay = 0.0;
  double val_fraction = 0.1;         // the last fraction of the file is held out
  std::string class_weights = "auto";  // auto | none | w0,w1,...
  std::uint64_t seed = 1;
  bool reference_kernels = false;    // CPU: the double-accumulating reference instead of BLAS
  int threads = 0;                   // BLAS threads; 0 = all cores
  std::int64_t max_steps = 0;        // per epoch, 0 = whole epoch (for quick checks)
  double progress_seconds = 30.0;    // a step progress line at most this often
  // Distributed (harness/strategy): devices in this process (mirrored), fusion bucket, overlap,
  // node grouping (hierarchical), bounded staleness (ps-async), and how long a rank may wait for a
  // peer before the job is ended with an error naming it.
  int devices = 1;
  double bucket_mb = 4.0;
  bool no_overlap = false;
  int ranks_per_node = 0;
  int staleness = 4;
  std::string compression = "none";  // ring/hierarchical gradient wire type: none | bf16 | fp16
  double comm_timeout_s = 300.0;
  std::string dump_weights;          // write the final weights (raw f32) to <path>.rank<r> (tests)

  void validate() const;             // throws scalebench::Error naming the option
  // Every field that must agree across ranks, as "key=value" lines (compared before the first
  // collective; threads, progress and dump paths may differ and are left out).
  std::string canonical_text() const;
};

}  // namespace scalebench
