// lars.cpp — LARS over one layer (see lars.h). Norms accumulate in double.
#include "kernels/cpu/lars.h"

#include <cmath>

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
  const float local_lr = float(double(lr) * trust);
  for (std::int64_t i = 0; i < count; ++i) {
    v[i] = momentum * v[i] + local_lr * (g[i] + weight_decay * w[i]);
    w[i] -= v[i];
  }
  return trust;
}

}  // namespace scalebench::cpu
