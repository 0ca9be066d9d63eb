// linear_params.h — the sizes of one fully connected layer: x [n, in], W [out, in], y [n, out].
// Shared by the CPU kernels (kernels/cpu/linear.h) and cuBLAS (kernels/cuda/linear.h).
// Plain data: no validation, dtype or precision.
#pragma once

namespace scalebench {

struct LinearParams {
  int n = 1, in = 1, out = 1;  // x [n, in], y [n, out]
};

}  // namespace scalebench
