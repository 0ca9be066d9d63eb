// lamb.cpp — LAMB over one layer (see lamb.h): moments first, then the direction and its norm, then
// the update (two passes; the direction is recomputed rather than stored). Norms in double, and the
// update too when lr·trust does not fit in a float.
#include "kernels/cpu/lamb.h"

#include <cmath>
#include <limits>

#include "kernels/common/check.h"

namespace scalebench::cpu {

double lamb_step(std::int64_t count, float* w, const float* g, float* m, float* v, float lr, float beta1, float beta2,
                 float eps, float weight_decay, std::int64_t t, bool adapt) {
  SB_CHECK(t >= 1, "lamb_step: step t={} must be 1-based", t);
  const float inv_bc1 = float(1.0 / (1.0 - std::pow(double(beta1), double(t))));
  const float inv_bc2 = float(1.0 / (1.0 - std::pow(double(beta2), double(t))));
  auto direction = [&](std::int64_t i) {
    return (m[i] * inv_bc1) / (std::sqrt(v[i] * inv_bc2) + eps) + weight_decay * w[i];
  };
  double ww = 0, rr = 0;
  for (std::int64_t i = 0; i < count; ++i) {
    m[i] = beta1 * m[i] + (1.0f - beta1) * g[i];
    v[i] = beta2 * v[i] + (1.0f - beta2) * g[i] * g[i];
    const double r = direction(i);
    ww += double(w[i]) * w[i], rr += r * r;
  }
  double trust = 1.0;
  if (adapt && ww > 0 && rr > 0) trust = std::sqrt(ww) / std::sqrt(rr);
  // lr·trust exceeds float's range when ‖r‖ is tiny against ‖w‖ (a tensor whose gradient vanished:
  // m decays towards 0 while ‖w‖ stays), although the step's norm is lr·‖w‖. Cast to float it
  // would be inf and turn the whole tensor into ±inf in one step; then the product is taken in
  // double. Below float's maximum the float path is kept (the same results as before).
  const double scale = double(lr) * trust;
  if (scale <= double(std::numeric_limits<float>::max())) {
    const float step = float(scale);
    for (std::int64_t i = 0; i < count; ++i) w[i] -= step * direction(i);
  } else {
    for (std::int64_t i = 0; i < count; ++i) w[i] = float(double(w[i]) - scale * double(direction(i)));
  }
  return trust;
}

}  // namespace scalebench::cpu
