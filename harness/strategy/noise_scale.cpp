// noise_scale.cpp — the two-batch estimator and the epoch's sums (see noise_scale.h).
#include "harness/strategy/noise_scale.h"

#include <cmath>
#include <limits>

#include "kernels/common/check.h"

namespace scalebench {

NoiseScale estimate_noise_scale(double small_sq, double big_sq, double b_small, double b_big) {
  SB_CHECK(b_small > 0 && b_big > b_small, "noise scale: batch sizes {} and {} (need 0 < small < big)", b_small,
           b_big);
  const double sq_norm = (b_big * big_sq - b_small * small_sq) / (b_big - b_small);
  const double trace = (small_sq - big_sq) / (1.0 / b_small - 1.0 / b_big);
  return {trace, sq_norm, sq_norm > 0 ? trace / sq_norm : std::numeric_limits<double>::quiet_NaN()};
}

void NoiseScaleSums::add(const GradNorms& n) {
  if (n.smalls == 0) return;
  SB_CHECK(n.smalls > 1, "noise scale: a step measured {} small batches in its big one", n.smalls);
  SB_CHECK(smalls == 0 || smalls == n.smalls, "noise scale: {} small batches per step after {}", n.smalls, smalls);
  smalls = n.smalls;
  small_sq += n.small_sq;
  big_sq += n.big_sq;
  ++steps;
}

NoiseScale NoiseScaleSums::estimate(std::int64_t global_batch) const {
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  if (steps == 0) return {nan, nan, nan};
  const double big = double(global_batch);
  return estimate_noise_scale(small_sq / double(steps), big_sq / double(steps), big / smalls, big);
}

std::string noise_scale_unmeasurable(const StrategyTraits& t, int workers, int accumulate) {
  if (t.exchange == Exchange::server)
    return fmt::format("not measured: {} sums the workers' gradients on its server, so no worker holds both a "
                       "replica's gradient and the global one",
                       t.name);
  if (workers > 1 || accumulate > 1) return "";
  return "not measured: one replica with --accumulate 1 sees one batch size only (use --accumulate 2 or more)";
}

}  // namespace scalebench
