// optimizers.cpp — SGD with momentum and AdamW over one flat parameter arena, PyTorch semantics
// (torch.optim.SGD with dampening 0 and no Nesterov; torch.optim.AdamW without amsgrad). One pass
// over memory per step; per-step scalars (bias corrections) are formed in double once. No
// gradient clipping or scaling: callers do that before the step. Element ranges are split over the
// rank's threads (parallel.h); every element's arithmetic is the serial loop's.
#include "kernels/cpu/optimizers.h"

#include <cmath>

#include "kernels/common/check.h"
#include "kernels/cpu/parallel.h"

namespace scalebench::cpu {

void sgd_momentum_step(std::int64_t count, float* w, const float* g, float* m, float lr, float momentum,
                       float weight_decay, bool first_step) {
  parallel_for(count, kValuesPerThread, [&](std::int64_t first, std::int64_t last) {
    for (std::int64_t i = first; i < last; ++i) {
      const float gi = g[i] + weight_decay * w[i];
      // PyTorch initialises the buffer with the first gradient itself (not momentum·0 + g).
      m[i] = first_step ? gi : momentum * m[i] + gi;
      w[i] -= lr * m[i];
    }
  });
}

void adamw_step(std::int64_t count, float* w, const float* g, float* m, float* v, float lr, float beta1,
                float beta2, float eps, float weight_decay, std::int64_t t) {
  SB_CHECK(t >= 1, "adamw_step: step t={} must be 1-based", t);
  const float decay = static_cast<float>(1.0 - double(lr) * weight_decay);
  const double bc1 = 1.0 - std::pow(double(beta1), double(t));
  const double bc2 = 1.0 - std::pow(double(beta2), double(t));
  const float step_size = static_cast<float>(lr / bc1);
  const float inv_sqrt_bc2 = static_cast<float>(1.0 / std::sqrt(bc2));
  parallel_for(count, kValuesPerThread, [&](std::int64_t first, std::int64_t last) {
    for (std::int64_t i = first; i < last; ++i) {
      w[i] *= decay;  // decoupled weight decay, applied before the moment update as PyTorch does
      m[i] = beta1 * m[i] + (1.0f - beta1) * g[i];
      v[i] = beta2 * v[i] + (1.0f - beta2) * g[i] * g[i];
      const float denom = std::sqrt(v[i]) * inv_sqrt_bc2 + eps;
      w[i] -= step_size * m[i] / denom;
    }
  });
}

}  // namespace scalebench::cpu
