// lamb.h — one LAMB step (You et al. 2019, "Large Batch Optimization for Deep Learning") over ONE
// layer's parameter tensor: Adam's bias-corrected direction r = m̂ / (√v̂ + eps) + wd·w, scaled by
// the layer-wise trust ratio ‖w‖ / ‖r‖; w -= lr·trust·r.
// What it deliberately does not do: choose which tensors adapt (adapt = false: trust 1, i.e. AdamW
// with weight decay folded into the direction), or clip the trust ratio.
#pragma once

#include <cstdint>

namespace scalebench::cpu {

// t: the 1-based step (bias correction). Returns the trust ratio used (1 when !adapt or a norm is 0).
double lamb_step(std::int64_t count, float* w, const float* g, float* m, float* v, float lr, float beta1, float beta2,
                 float eps, float weight_decay, std::int64_t t, bool adapt);

}  // namespace scalebench::cpu
