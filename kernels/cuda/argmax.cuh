// argmax.cuh — nvcc-only: the per-pixel argmax over classes shared by argmax_classes
// (softmax_xent.cu) and the confusion counts (confusion.cu). Strict x[c] > best from class 0 up, as
// kernels/cpu/softmax_xent.cpp: ties go to the lower class, a NaN never replaces the best so far.
#pragma once

#include "kernels/cuda/device_types.cuh"

namespace scalebench::cuda::detail {

// x points at class 0 of one pixel; class c is at x[c·hw].
template <class T>
__device__ __forceinline__ int argmax_at(const T* x, std::int64_t hw, int classes) {
  float best = to_f32(x[0]);
  int arg = 0;
  for (int c = 1; c < classes; ++c) {
    const float v = to_f32(x[std::int64_t(c) * hw]);
    if (v > best) {
      best = v;
      arg = c;
    }
  }
  return arg;
}

}  // namespace scalebench::cuda::detail
