// lr_schedule.cpp — warm-up + decay arithmetic.
#include "models/lr_schedule.h"

#include <algorithm>
#include <cmath>

#include "kernels/common/check.h"

namespace scalebench {

void LrSchedule::validate() const {
  SB_REQUIRE(base_lr > 0 && std::isfinite(base_lr), "--lr {} must be a positive number", base_lr);
  SB_REQUIRE(warmup_epochs >= 0, "--warmup-epochs {} must be >= 0", warmup_epochs);
  SB_REQUIRE(world >= 1 && steps_per_epoch >= 1 && epochs >= 1, "learning-rate schedule needs world, steps and epochs >= 1");
}

double LrSchedule::peak_lr() const {
  switch (scaling) {
    case LrScaling::none: return base_lr;
    case LrScaling::linear: return base_lr * world;
    case LrScaling::sqrt: return base_lr * std::sqrt(double(world));
  }
  return base_lr;
}

double LrSchedule::at(std::int64_t step) const {
  const double peak = peak_lr();
  const double warm = warmup_epochs * double(steps_per_epoch);
  if (step < warm) return peak * double(step + 1) / std::ceil(warm);
  if (decay == LrDecay::constant) return peak;
  const double total = double(steps_per_epoch) * epochs;
  const double t = std::clamp((double(step) - warm) / std::max(1.0, total - warm), 0.0, 1.0);
  // Cosine to 1% of the peak, not to zero: the last steps still learn.
  return peak * (0.01 + 0.99 * 0.5 * (1.0 + std::cos(M_PI * t)));
}

}  // namespace scalebench
