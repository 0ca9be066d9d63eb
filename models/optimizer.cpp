// optimizer.cpp — the optimizer kinds over the arena, through the arena's device (see optimizer.h).
#include "models/optimizer.h"

#include "kernels/common/check.h"
#include "kernels/common/device.h"

namespace scalebench {
namespace {
ComputeDevice& device_or_own(ComputeDevice* dev, std::unique_ptr<ComputeDevice>& own) {
  if (dev) return *dev;
  own = cpu::make_cpu_device();
  return *own;
}
}  // namespace

Optimizer::Optimizer(const OptimizerConfig& cfg, std::int64_t count, ComputeDevice* dev)
    : cfg_(cfg), count_(count), dev_(device_or_own(dev, own_)) {
  SB_REQUIRE(cfg.momentum >= 0 && cfg.momentum < 1, "momentum {} must be in [0, 1)", cfg.momentum);
  SB_REQUIRE(cfg.weight_decay >= 0, "weight decay {} must be >= 0", cfg.weight_decay);
  if (cfg_.tensors.empty()) cfg_.tensors.push_back({0, count, true});
  std::int64_t covered = 0;
  for (const auto& t : cfg_.tensors) covered += t.count;
  SB_CHECK(covered == count, "optimizer tensors cover {} of {} parameters", covered, count);
  m_ = dev_.zeros({count});
  if (has_second_moment()) v_ = dev_.zeros({count});
}

Optimizer::~Optimizer() = default;

Optimizer::State Optimizer::state() const {
  auto host = [&](const Tensor& t) {
    if (!t.defined()) return std::vector<float>{};
    const Tensor h = dev_.to_host(t);
    return std::vector<float>(h.f32(), h.f32() + h.numel());
  };
  return {t_, host(m_), host(v_)};
}

void Optimizer::restore(const State& s) {
  const std::size_t n = std::size_t(count_);
  const std::size_t nv = has_second_moment() ? n : 0;
  SB_REQUIRE(s.m.size() == n && s.v.size() == nv,
             "optimizer state of {} + {} values does not fit this model's {} parameters ({})", s.m.size(), s.v.size(),
             n, name_of(cfg_.kind));
  t_ = s.steps;
  auto up = [&](const std::vector<float>& src, Tensor& dst) {
    if (src.empty()) return;
    dev_.upload(Tensor::view(const_cast<float*>(src.data()), {count_}), dst);
  };
  up(s.m, m_);
  up(s.v, v_);
}

void Optimizer::step(float* w, const float* g, float lr) {
  ++t_;
  float* m = m_.f32();
  float* v = v_.defined() ? v_.f32() : nullptr;
  switch (cfg_.kind) {
    case OptimizerKind::sgd:
      return dev_.sgd_momentum_step(count_, w, g, m, lr, cfg_.momentum, cfg_.weight_decay, t_ == 1);
    case OptimizerKind::adamw:
      return dev_.adamw_step(count_, w, g, m, v, lr, cfg_.beta1, cfg_.beta2, cfg_.eps, cfg_.weight_decay, t_);
    case OptimizerKind::lars:
      for (const auto& p : cfg_.tensors)
        dev_.lars_step(p.count, w + p.offset, g + p.offset, m + p.offset, lr, cfg_.momentum, cfg_.weight_decay,
                       cfg_.trust_coefficient, p.adapt);
      return;
    case OptimizerKind::lamb:
      for (const auto& p : cfg_.tensors)
        dev_.lamb_step(p.count, w + p.offset, g + p.offset, m + p.offset, v + p.offset, lr, cfg_.beta1, cfg_.beta2,
                       cfg_.eps, cfg_.weight_decay, t_, p.adapt);
      return;
  }
}

}  // namespace scalebench
