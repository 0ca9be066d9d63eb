// lars.cpp — LARS over one layer (see lars.h). Norms accumulate in double, and the update is taken
// in double when lr·trust does not fit in a float.
#include "kernels/cpu/lars.h"

#include <cmath>
#include <limits>

namespace scalebench::cpu {

double lars_step(std::int64_t count, float* w, const float* g, float* v, float lr, float momentum, float weight_decay,
                 float eta, bool adapt) {
  double trust = 1.0;
  if (adapt) {
    double ww = 0, gg = 0;
    for (std::int64_t i = 0; i < count; ++i) ww += double(w[i]) * w[i], gg += double(g[i]) * g[i];
    const double wn = std::sqrt(ww), gn = std::sqrt(gg);
    if (wn > 0 && gn > 0) trust = eta * wn / (gn + weight_decay * wn);
  }
  // lr·trust exceeds float's range when ‖g‖ is tiny against ‖w‖ (no weight decay), although the
  // step lr·eta·‖w‖·g/‖g‖ is not: then the product is taken in double instead of turning the
  // tensor into ±inf. Below float's maximum the float path is kept (the same results as before).
  const double scale = double(lr) * trust;
  if (scale <= double(std::numeric_limits<float>::max())) {
    const float local_lr = float(scale);
    for (std::int64_t i = 0; i < count; ++i) {
      v[i] = momentum * v[i] + local_lr * (g[i] + weight_decay * w[i]);
      w[i] -= v[i];
    }
  } else {
    for (std::int64_t i = 0; i < count; ++i) {
      v[i] = float(double(momentum) * v[i] + scale * double(g[i] + weight_decay * w[i]));
      w[i] -= v[i];
    }
  }
  return trust;
}

}  // namespace scalebench::cpu
