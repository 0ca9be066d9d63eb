// reduce.h — the element-wise passes and reductions the training core needs on a GPU besides the
// layers (models/cuda/device.cpp serves them through ComputeDevice): fill, y += a·x, dot products
// in double and the first non-finite element. Reductions are deterministic: a fixed grid of
// kReducePartials blocks, each summing a fixed stride in a fixed tree (detail::block_sum), then one
// block adding the partials in order — the same bits every run (--deterministic relies on it).
// Results stay on the device (the caller downloads once for several).
// Not here: the optimizers (optimizers.h, layerwise.h), casts (cast.h), sums over devices (comm).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace scalebench::cuda {

inline constexpr int kReducePartials = 256;  // doubles of scratch a reduction needs

void fill(std::int64_t count, float* x, float v, cudaStream_t stream);
// y += a·x in f32 (one rounding for a·x and one for the sum; a = 1 gives y + x exactly).
void axpy(std::int64_t count, float a, const float* x, float* y, cudaStream_t stream);
// *out = Σ double(a[i])·b[i] (out and scratch [kReducePartials] device doubles).
void dot(std::int64_t count, const float* a, const float* b, double* out, double* scratch, cudaStream_t stream);
// *index = the smallest i with x[i] not finite, or stays as it was (the caller sets it to
// UINT64_MAX first); index is device memory.
void first_nonfinite(std::int64_t count, const float* x, unsigned long long* index, cudaStream_t stream);

}  // namespace scalebench::cuda
