// train_config.cpp — the rules between options (each option's own check is its row in
// train_fields.cpp), the ranks' agreement text, and --class-weights parsing. Errors are one line
// naming the options.
#include "harness/train/train_config.h"

#include <cmath>

#include "harness/train/backend_traits.h"
#include "harness/train/train_fields.h"
#include "kernels/common/check.h"
#include "kernels/onednn/conv2d.h"
#include "models/device.h"

namespace scalebench {

ClassWeights ClassWeights::parse(std::string_view text) {
  ClassWeights w;
  w.text = std::string(text);
  if (text == "auto") return w;
  if (text == "none") {
    w.mode = Mode::none;
    return w;
  }
  w.mode = Mode::given;
  for (std::size_t b = 0, e; b <= text.size(); b = e + 1) {
    e = std::min(text.find(',', b), text.size());
    const std::string item(text.substr(b, e - b));
    char* end = nullptr;
    const double v = std::strtod(item.c_str(), &end);
    SB_REQUIRE(!item.empty() && end == item.c_str() + item.size() && std::isfinite(v) && v >= 0,
               "'{}' is not auto, none or a list of non-negative weights w0,w1,... (bad item '{}')", text, item);
    w.given.push_back(float(v));
  }
  return w;
}

void TrainConfig::validate() const {
  for (const auto& f : train_fields())
    if (auto p = f.check(*this)) fail_input(fmt::format("{}: {}", f.flag, *p));
  const StrategyTraits& st = strategy_traits();
  SB_REQUIRE(!data.empty(), "--data is required (an HDF5 dataset; make one with `scalebench datagen`)");
  require_backend_features(*this);  // the backend's capability rows (backend_traits.h)
  SB_REQUIRE(runs_on(strategy, backend), "--backend {} does not run --strategy {} ({}); it runs: {}", name_of(backend),
             st.name, st.transport, strategies_on(backend));
  SB_REQUIRE(devices == 1 || (st.multi_device && st.processes == Processes::one),
             "--devices {} needs a one-process strategy that drives several devices (mirrored), not {}", devices,
             st.name);
  SB_REQUIRE(compression == comm::WireType::f32 || st.compression,
             "--compression {} needs --strategy {}, not {}", name_of(compression),
             strategies_with(&StrategyTraits::compression, " or "), st.name);
  SB_REQUIRE(!reference_kernels || cpu_kernels == CpuKernels::automatic,
             "--reference-kernels and --cpu-kernels {}: the reference replaces every fast path; give one of them",
             name_of(cpu_kernels));
  SB_REQUIRE(!sync_bn || st.exchange != Exchange::server,
             "--sync-bn needs an allreduce strategy or single, not {} (parameter-server workers have no "
             "collective among themselves)",
             st.name);
  SB_REQUIRE(transport != Transport::nccl || backend == Backend::cuda,
             "--transport nccl needs --backend cuda (the CPU's ranks exchange over threads or MPI)");
  SB_REQUIRE(transport != Transport::nccl || st.exchange != Exchange::server,
             "--transport nccl: {} exchanges tagged messages with its server, which NCCL cannot match; use "
             "--transport staged or auto", st.name);
  SB_REQUIRE(target_miou == 0 || target_accuracy == 0,
             "--target-miou {} and --target-accuracy {}: a run has one target; give one of them", target_miou,
             target_accuracy);
  SB_REQUIRE(eval_every_steps == 0 || has_target(),
             "--eval-every-steps {} needs --target-miou or --target-accuracy (the evaluations only decide a target)",
             eval_every_steps);
}

void TrainConfig::require_this_build() const {
  SB_REQUIRE(backend == Backend::cpu || cuda_backend_built(),
             "--backend cuda: this build has no CUDA backend (configure with nvcc on PATH)");
  SB_REQUIRE(cpu_kernels != CpuKernels::onednn || onednn::available(),
             "--cpu-kernels onednn: this build has no oneDNN (install libdnnl-dev and rebuild; auto and blas need none)");
}

std::string TrainConfig::canonical_text() const {
  std::string s;
  for (const auto& f : train_fields())
    if (f.agree) s += fmt::format("{}={}\n", f.key, f.text(*this));
  return s;
}

}  // namespace scalebench
