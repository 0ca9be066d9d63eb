// relu.h — ReLU forward and backward on flat float32 arrays (in place allowed for forward).
#pragma once

#include <cstdint>

namespace scalebench::cpu {

void relu_forward(std::int64_t count, const float* x, float* y);
// dx = dy where y > 0 else 0 (uses the output, so the input may have been overwritten).
void relu_backward(std::int64_t count, const float* y, const float* dy, float* dx);

}  // namespace scalebench::cpu
