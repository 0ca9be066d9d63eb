// relu.cpp — ReLU on flat float32 arrays. Branch-free loops the compiler vectorises; in-place
// forward (x == y) and in-place backward (dy == dx) are fine because each element is read once
// before it is written. No leaky/clipped variants.
#include "kernels/cpu/relu.h"

namespace scalebench::cpu {

void relu_forward(std::int64_t count, const float* x, float* y) {
  for (std::int64_t i = 0; i < count; ++i) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

void relu_backward(std::int64_t count, const float* y, const float* dy, float* dx) {
  for (std::int64_t i = 0; i < count; ++i) dx[i] = y[i] > 0.0f ? dy[i] : 0.0f;
}

}  // namespace scalebench::cpu
