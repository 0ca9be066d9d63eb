// add.h — dst += src element-wise on the GPU (and x *= s for gradient means), in f32, bf16 or f16 (math in fp32, one rounding on
// store): the Model's sum where one activation feeds two layers (U-Net skips) and its gradients meet.
// Not here: scaling, broadcasting, or mixed dtypes.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/common/tensor.h"

namespace scalebench::cuda {

// dst [count] += src [count], both of `dtype`, ordered on `stream`. dst and src must not overlap.
void add_inplace(std::int64_t count, DType dtype, void* dst, const void* src, cudaStream_t stream);
// x [count] *= s in f32, one rounding per element (the CPU loop's x[i] *= s, bit for bit).
void scale_inplace(std::int64_t count, float* x, float s, cudaStream_t stream);

}  // namespace scalebench::cuda
