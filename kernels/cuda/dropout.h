// dropout.h — inverted dropout on the GPU drawing exactly kernels/cpu/dropout.h's mask: element i
// is kept (mask 1/(1-p)) iff the top 24 bits of SplitMix64 output number index_offset + i of the
// stream seeded with `seed`, as a float in [0, 1), are >= p. Same (seed, index_offset, count, p)
// gives the same f32 mask bits on CPU and GPU, so CPU and GPU training draw identical masks and a
// data-parallel rank's slice equals the single-device mask. x, y, dy, dx are f32, bf16 or f16
// (y = x·mask in fp32, one rounding); the mask is always f32 [count].
// Not here: regenerating the mask in the backward (it is stored), or a packed bit mask.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/common/tensor.h"

namespace scalebench::cuda {

// p in [0, 1). mask [count] f32 is written; y = x·mask (x == y allowed).
void dropout_forward(std::int64_t count, float p, std::uint64_t seed, DType dtype, const void* x, void* y, float* mask,
                     std::int64_t index_offset, cudaStream_t stream);
// dx = dy·mask (dy == dx allowed).
void dropout_backward(std::int64_t count, DType dtype, const void* dy, const float* mask, void* dx,
                      cudaStream_t stream);

}  // namespace scalebench::cuda
