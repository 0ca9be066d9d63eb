// backend_traits.cpp — the backend feature rows and the texts derived from them (see backend_traits.h).
#include "harness/train/backend_traits.h"

#include <array>

#include <fmt/format.h>

#include "harness/strategy/strategy_traits.h"
#include "harness/train/train_config.h"

namespace scalebench {
namespace {

using C = const TrainConfig&;

const std::array<BackendFeature, 15> kFeatures{{
    {"tf32 and bf16 math", "--precision tf32|bf16", [](C c) { return c.precision != Precision::fp32; }, false, true,
     "the CPU backend trains in fp32 only", ""},
    {"NHWC activations", "--layout NHWC", [](C c) { return c.layout != Layout::NCHW; }, false, true,
     "the CPU backend computes in NCHW only", ""},
    {"deterministic algorithm choice", "--deterministic", [](C c) { return c.deterministic; }, false, true,
     "it is a cuDNN option (the CPU is deterministic)", ""},
    {"cuDNN workspace cap", "--cudnn-workspace-mib",
     [](C c) { return c.cudnn_workspace_mib != TrainConfig::kDefaultCudnnWorkspaceMib; }, false, true,
     "the CPU backend has no cuDNN workspace", ""},
    {"CUDA graph of the step", "--cuda-graph on", [](C c) { return c.cuda_graph == CudaGraph::on; }, false, true,
     "the CPU backend has no CUDA graphs", ""},
    {"own batch norm and max pooling kernels", "--gpu-kernels own", [](C c) { return c.gpu_kernels == GpuKernels::own; },
     false, true, "the CPU backend runs its own kernels always", ""},
    {"reference kernels (double accumulation)", "--reference-kernels", [](C c) { return c.reference_kernels; },
     true, false, "",
     "the GPU layers have no reference kernels: the CPU reference is what they are tested against"},
    {"CPU convolution kernels (im2col + OpenBLAS, oneDNN)", "--cpu-kernels blas|onednn",
     [](C c) { return c.cpu_kernels != CpuKernels::automatic; }, true, false, "",
     "the GPU layers run cuDNN"},
    {"gradient accumulation", "--accumulate", [](C c) { return c.accumulate > 1; }, true, true, "", ""},
    {"synchronised batch norm", "--sync-bn", [](C c) { return c.sync_bn; }, true, true, "", ""},
    {"LARS", "--optimizer lars", [](C c) { return c.optimizer == OptimizerKind::lars; }, true, true, "", ""},
    {"LAMB", "--optimizer lamb", [](C c) { return c.optimizer == OptimizerKind::lamb; }, true, true, "", ""},
    {"SGD-momentum and AdamW", "--optimizer sgd|adamw", nullptr, true, true, "", ""},
    {"non-finite gradient scan", "--on-nonfinite", nullptr, true, true, "", ""},
    {"per-phase step times on the device's clock", "", nullptr, true, true, "", ""},
}};

}  // namespace

std::span<const BackendFeature> backend_features() { return kFeatures; }

bool feature_on(const BackendFeature& f, Backend b) { return b == Backend::cpu ? f.cpu : f.cuda; }

std::string as_used(const BackendFeature& f, const TrainConfig& cfg) {
  if (f.option.starts_with("--precision ")) return fmt::format("--precision {}", name_of(cfg.precision));
  if (f.option.starts_with("--cpu-kernels ")) return fmt::format("--cpu-kernels {}", name_of(cfg.cpu_kernels));
  if (f.option.starts_with("--optimizer ")) return fmt::format("--optimizer {}", name_of(cfg.optimizer));
  return std::string(f.option);
}

void require_backend_features(const TrainConfig& cfg) {
  for (const auto& f : kFeatures)
    if (f.used && f.used(cfg) && !feature_on(f, cfg.backend))
      fail_input(fmt::format("{}: not on --backend {} ({})", as_used(f, cfg), name_of(cfg.backend),
                             cfg.backend == Backend::cpu ? f.why_not_cpu : f.why_not_cuda));
}

std::string backend_help() {
  std::string s;
  for (Backend b : {Backend::cpu, Backend::cuda}) {
    std::string only;
    for (const auto& f : kFeatures)
      if (!f.option.empty() && feature_on(f, b) && !feature_on(f, b == Backend::cpu ? Backend::cuda : Backend::cpu))
        only += (only.empty() ? "" : ", ") + std::string(f.option);
    if (!only.empty()) s += fmt::format("{}{} only: {}", s.empty() ? "" : "; ", name_of(b), only);
  }
  return s;
}

std::string backend_feature_table() {
  const auto yes = [](bool v) { return v ? "yes" : "no"; };
  const auto cell = [](std::string_view option) {  // a table cell: '|' escaped (GitHub markdown)
    std::string s = "`";
    for (char ch : option) s += ch == '|' ? std::string("\\|") : std::string(1, ch);
    return s + "`";
  };
  std::string s = "| feature | option | cpu | cuda |\n|---|---|---|---|\n";
  for (const auto& f : kFeatures)
    s += fmt::format("| {} | {} | {} | {} |\n", f.name, f.option.empty() ? "—" : cell(f.option),
                     yes(f.cpu), yes(f.cuda));
  for (const auto& t : kStrategies)
    s += fmt::format("| strategy {} | `--strategy {}` | {} | {} |\n", t.name, t.name, yes(t.cpu), yes(t.cuda));
  return s;
}

}  // namespace scalebench
