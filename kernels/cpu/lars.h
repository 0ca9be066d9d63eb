// lars.h — one LARS step (You, Gitman, Ginsburg 2017) over ONE layer's parameter tensor: the
// layer-wise trust ratio scales the learning rate by ‖w‖ / (‖g‖ + wd·‖w‖). Momentum form as in
// MLPerf / TF LARS: v = momentum·v + lr·trust·(g + wd·w); w -= v.
// What it deliberately does not do: choose which tensors adapt (the caller passes adapt = false for
// biases and batch-norm parameters, which then take plain SGD-momentum steps with trust 1), or clip.
#pragma once

#include <cstdint>

namespace scalebench::cpu {

// Returns the trust ratio used (1 when !adapt, or when ‖w‖ or ‖g‖ is 0). eta: trust coefficient.
double lars_step(std::int64_t count, float* w, const float* g, float* v, float lr, float momentum, float weight_decay,
                 float eta, bool adapt);

}  // namespace scalebench::cpu
