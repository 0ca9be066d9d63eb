// optimizer.cpp — dispatch to the arena-wide kernels in kernels/cpu/optimizers.
#include "models/optimizer.h"

#include "kernels/common/check.h"
#include "kernels/cpu/lamb.h"
#include "kernels/cpu/lars.h"
#include "kernels/cpu/optimizers.h"
#include "models/cuda/train.h"

namespace scalebench {

Optimizer::Optimizer(const OptimizerConfig& cfg, std::int64_t count, GpuContext* gpu) : cfg_(cfg), count_(count) {
  SB_REQUIRE(cfg.momentum >= 0 && cfg.momentum < 1, "momentum {} must be in [0, 1)", cfg.momentum);
  SB_REQUIRE(cfg.weight_decay >= 0, "weight decay {} must be >= 0", cfg.weight_decay);
  SB_REQUIRE(!gpu || cfg.kind == OptimizerKind::sgd || cfg.kind == OptimizerKind::adamw,
             "--optimizer {} runs on the CPU backend only", name_of(cfg.kind));
  if (cfg_.tensors.empty()) cfg_.tensors.push_back({0, count, true});
  std::int64_t covered = 0;
  for (const auto& t : cfg_.tensors) covered += t.count;
  SB_CHECK(covered == count, "optimizer tensors cover {} of {} parameters", covered, count);
  if (gpu) {
#if SCALEBENCH_HAVE_CUDA
    gpu_ = std::make_shared<GpuOptimizer>(*gpu, cfg, count);
    return;
#endif
  }
  m_.assign(std::size_t(count), 0.0f);
  if (has_second_moment()) v_.assign(std::size_t(count), 0.0f);
}

Optimizer::~Optimizer() = default;

Optimizer::State Optimizer::state() const {
#if SCALEBENCH_HAVE_CUDA
  if (gpu_) return {t_, gpu_->moment(0), gpu_->moment(1)};
#endif
  return {t_, m_, v_};
}

void Optimizer::restore(const State& s) {
  const std::size_t n = std::size_t(count_);
  const std::size_t nv = has_second_moment() ? n : 0;
  SB_REQUIRE(s.m.size() == n && s.v.size() == nv,
             "optimizer state of {} + {} values does not fit this model's {} parameters ({})", s.m.size(), s.v.size(),
             n, name_of(cfg_.kind));
  t_ = s.steps;
#if SCALEBENCH_HAVE_CUDA
  if (gpu_) return gpu_->restore(s.steps, s.m, s.v);
#endif
  m_ = s.m;
  v_ = s.v;
}

void Optimizer::step(float* w, const float* g, float lr) {
  ++t_;
#if SCALEBENCH_HAVE_CUDA
  if (gpu_) return gpu_->step(w, g, lr);
#endif
  switch (cfg_.kind) {
    case OptimizerKind::sgd:
      return cpu::sgd_momentum_step(count_, w, g, m_.data(), lr, cfg_.momentum, cfg_.weight_decay, t_ == 1);
    case OptimizerKind::adamw:
      return cpu::adamw_step(count_, w, g, m_.data(), v_.data(), lr, cfg_.beta1, cfg_.beta2, cfg_.eps,
                             cfg_.weight_decay, t_);
    case OptimizerKind::lars:
      for (const auto& p : cfg_.tensors)
        cpu::lars_step(p.count, w + p.offset, g + p.offset, m_.data() + p.offset, lr, cfg_.momentum,
                       cfg_.weight_decay, cfg_.trust_coefficient, p.adapt);
      return;
    case OptimizerKind::lamb:
      for (const auto& p : cfg_.tensors)
        cpu::lamb_step(p.count, w + p.offset, g + p.offset, m_.data() + p.offset, v_.data() + p.offset, lr,
                       cfg_.beta1, cfg_.beta2, cfg_.eps, cfg_.weight_decay, t_, p.adapt);
      return;
  }
}

}  // namespace scalebench
