// dropout.cu — counter-based dropout (see dropout.h). splitmix64_at is the CPU's formula
// (kernels/cpu/dropout.cpp) in 64-bit integer arithmetic, which wraps identically on both sides;
// the uniform is (z >> 40)·2^-24, exact in float, so the keep decision is bit-identical. The keep
// scale 1/(1-p) is computed once on the host in float, as the CPU does.
// No Philox/curand: the CPU's SplitMix64 counter is cheap enough and keeps the masks identical.
#include "kernels/cuda/device_types.cuh"

#include "kernels/cuda/check.h"
#include "kernels/cuda/dropout.h"

namespace scalebench::cuda {
namespace {

using namespace detail;

__device__ __forceinline__ std::uint64_t splitmix64_at(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

template <class T>
__global__ void dropout_forward_kernel(std::int64_t count, float p, float keep_scale, std::uint64_t seed,
                                       std::int64_t index_offset, const T* x, T* y, float* mask) {
  for (std::int64_t i = global_thread(); i < count; i += grid_threads()) {
    const std::uint64_t z = splitmix64_at(seed, static_cast<std::uint64_t>(index_offset + i));
    const float u = static_cast<float>(z >> 40) * 0x1p-24f;
    const float mi = u >= p ? keep_scale : 0.0f;
    mask[i] = mi;
    y[i] = from_f32<T>(__fmul_rn(to_f32(x[i]), mi));
  }
}

template <class T>
__global__ void dropout_backward_kernel(std::int64_t count, const T* dy, const float* mask, T* dx) {
  for (std::int64_t i = global_thread(); i < count; i += grid_threads())
    dx[i] = from_f32<T>(__fmul_rn(to_f32(dy[i]), mask[i]));
}

}  // namespace

void dropout_forward(std::int64_t count, float p, std::uint64_t seed, DType dtype, const void* x, void* y, float* mask,
                     std::int64_t index_offset, cudaStream_t stream) {
  SB_CHECK(p >= 0.0f && p < 1.0f, "dropout: p={} outside [0, 1)", p);
  SB_CHECK(count >= 0, "dropout: count {} < 0", count);
  if (count == 0) return;
  const float keep_scale = 1.0f / (1.0f - p);
  dispatch_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    dropout_forward_kernel<T><<<grid_for(count), kBlock, 0, stream>>>(count, p, keep_scale, seed, index_offset,
                                                                      static_cast<const T*>(x), static_cast<T*>(y),
                                                                      mask);
  });
  CUDA_CHECK(cudaGetLastError());
}

void dropout_backward(std::int64_t count, DType dtype, const void* dy, const float* mask, void* dx,
                      cudaStream_t stream) {
  SB_CHECK(count >= 0, "dropout_backward: count {} < 0", count);
  if (count == 0) return;
  dispatch_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    dropout_backward_kernel<T><<<grid_for(count), kBlock, 0, stream>>>(count, static_cast<const T*>(dy), mask,
                                                                       static_cast<T*>(dx));
  });
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace scalebench::cuda
