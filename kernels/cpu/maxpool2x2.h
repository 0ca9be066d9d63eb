// maxpool2x2.h — 2×2 stride-2 max pooling, NCHW float32. Odd sizes floor (the last row/column is
// dropped, as in PyTorch's default). The forward records the argmax (flat index into the input
// plane) so the backward is a scatter; ties go to the first element in row-major order.
#pragma once

#include <cstdint>

namespace scalebench::cpu {

// x [n, c, h, w] -> y [n, c, h/2, w/2], argmax [n, c, h/2, w/2] (index within the h×w plane).
void maxpool2x2_forward(int n, int c, int h, int w, const float* x, float* y, std::int32_t* argmax);
// dx [n, c, h, w] overwritten (zeros except at the argmax positions).
void maxpool2x2_backward(int n, int c, int h, int w, const float* dy, const std::int32_t* argmax, float* dx);

}  // namespace scalebench::cpu
