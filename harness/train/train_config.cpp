// train_config.cpp — option validation with one-line errors.
#include "harness/train/train_config.h"

#include "kernels/common/check.h"
#include "models/lr_schedule.h"

namespace scalebench {

void TrainConfig::validate() const {
  SB_REQUIRE(!data.empty(), "--data is required (an HDF5 dataset; make one with `scalebench datagen`)");
  SB_REQUIRE(epochs >= 1, "--epochs {} must be >= 1", epochs);
  SB_REQUIRE(batch >= 1, "--batch {} must be >= 1", batch);
  SB_REQUIRE(val_fraction > 0 && val_fraction < 1, "--val-fraction {} must be in (0, 1)", val_fraction);
  SB_REQUIRE(max_steps >= 0, "--max-steps {} must be >= 0", max_steps);
  SB_REQUIRE(threads >= 0, "--threads {} must be >= 0", threads);
  SB_REQUIRE(backend == "cpu" || backend == "cuda", "--backend '{}' is unknown (cpu or cuda)", backend);
#if !SCALEBENCH_HAVE_CUDA
  SB_REQUIRE(backend == "cpu", "--backend cuda: this build has no CUDA backend (configure with nvcc on PATH)");
#endif
  SB_REQUIRE(precision == "fp32" || precision == "tf32" || precision == "bf16",
             "--precision '{}' is unknown (fp32, tf32 or bf16)", precision);
  SB_REQUIRE(precision == "fp32" || backend == "cuda", "--precision {}: the CPU backend trains in fp32 only",
             precision);
  SB_REQUIRE(layout == "NCHW" || layout == "NHWC", "--layout '{}' is unknown (NCHW or NHWC)", layout);
  SB_REQUIRE(layout == "NCHW" || backend == "cuda", "--layout {}: the CPU backend computes in NCHW only", layout);
  SB_REQUIRE(!deterministic || backend == "cuda", "--deterministic is a cuda option (the CPU is deterministic)");
  SB_REQUIRE(cudnn_workspace_mib >= 0 && cudnn_workspace_mib <= kMaxCudnnWorkspaceMib,
             "--cudnn-workspace-mib {} must be in [0, {}]", cudnn_workspace_mib, kMaxCudnnWorkspaceMib);
  SB_REQUIRE(cudnn_workspace_mib == kDefaultCudnnWorkspaceMib || backend == "cuda",
             "--cudnn-workspace-mib is a cuda option (the CPU backend has no cuDNN workspace)");
  SB_REQUIRE(backend == "cpu" || (strategy != "ps-sync" && strategy != "ps-async"),
             "--backend cuda runs --strategy single, mirrored, multiworker, ring or hierarchical (NCCL); {} keeps "
             "the weights on a server rank's host and runs on --backend cpu only",
             strategy);
  static const char* known[] = {"single", "mirrored", "multiworker", "ring", "hierarchical", "ps-sync", "ps-async"};
  bool ok = false;
  for (const char* k : known) ok = ok || strategy == k;
  SB_REQUIRE(ok, "--strategy '{}' is unknown (single, mirrored, multiworker, ring, hierarchical, ps-sync, ps-async)",
             strategy);
  SB_REQUIRE(devices >= 1, "--devices {} must be >= 1", devices);
  SB_REQUIRE(devices == 1 || strategy == "mirrored", "--devices {} needs --strategy mirrored (one process, N devices)",
             devices);
  SB_REQUIRE(bucket_mb > 0, "--bucket-mb {} must be > 0", bucket_mb);
  SB_REQUIRE(staleness >= 0, "--staleness {} must be >= 0", staleness);
  SB_REQUIRE(comm_timeout_s > 0, "--comm-timeout {} must be > 0", comm_timeout_s);
  SB_REQUIRE(compression == "none" || compression == "bf16" || compression == "fp16",
             "--compression '{}' is unknown (none, bf16 or fp16)", compression);
  SB_REQUIRE(compression == "none" || strategy == "ring" || strategy == "hierarchical",
             "--compression {} needs --strategy ring or hierarchical, not {}", compression, strategy);
  parse_lr_scaling(lr_scaling);
}

std::string TrainConfig::canonical_text() const {
  return fmt::format(
      "model={}\ndata={}\nstrategy={}\nbackend={}\nprecision={}\nepochs={}\nbatch={}\nlr={}\nlr_scaling={}\n"
      "warmup_epochs={}\nlr_decay={}\noptimizer={}\nmomentum={}\nweight_decay={}\nval_fraction={}\n"
      "class_weights={}\nseed={}\nreference_kernels={}\nmax_steps={}\ndevices={}\nbucket_mb={}\n"
      "no_overlap={}\nranks_per_node={}\nstaleness={}\ncompression={}\nlayout={}\ndeterministic={}\n"
      "cudnn_workspace_mib={}\n",
      model, data, strategy, backend, precision, epochs, batch, lr, lr_scaling, warmup_epochs, lr_decay, optimizer,
      momentum, weight_decay, val_fraction, class_weights, seed, reference_kernels, max_steps, devices, bucket_mb,
      no_overlap, ranks_per_node, staleness, compression, layout, deterministic, cudnn_workspace_mib);
}

}  // namespace scalebench
