// device_types.cuh — nvcc-only helpers shared by the .cu files of this room: the storage types of
// the three float dtypes, their conversions to and from fp32 (bf16 rounding bit-identical to the
// CPU's gradient compression in harness/comm/pipeline.cpp), a host-side dtype dispatch, the launch
// geometry of grid-stride loops and a deterministic block sum. Include only from .cu files; plain
// C++ code includes the launcher .h headers instead. No kernels here.
//
// Include this header FIRST in every .cu file: fmt 9 turns its constexpr support off when it sees
// __NVCC__, after which its consteval format-string check (reached through SB_CHECK / CUDA_CHECK in
// kernels/common/check.h) no longer compiles. Turning it back on gives .cu files the same fmt
// definitions the g++-compiled files get.
#pragma once

#if defined(__CUDACC__) && !defined(FMT_USE_CONSTEXPR)
#define FMT_USE_CONSTEXPR 1
#endif

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "kernels/common/tensor.h"

namespace scalebench::cuda::detail {

using bf16 = __nv_bfloat16;
using f16 = __half;

// ---- fp32 <-> storage type (fp32 math everywhere; 16-bit types are storage only) ----

__device__ __forceinline__ float to_f32(float v) { return v; }
__device__ __forceinline__ float to_f32(bf16 v) {
  return __uint_as_float(std::uint32_t(__bfloat16_as_ushort(v)) << 16);  // exact
}
__device__ __forceinline__ float to_f32(f16 v) { return __half2float(v); }  // exact

// Round to nearest even on the top 16 bits; NaN stays a (quiet) NaN with its sign and top payload,
// exactly as harness/comm/pipeline.cpp's to_bf16 does, so GPU and CPU compression agree bit for bit.
__device__ __forceinline__ std::uint16_t f32_to_bf16_bits(float f) {
  std::uint32_t u = __float_as_uint(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<std::uint16_t>(u >> 16);
}

template <class T>
__device__ __forceinline__ T from_f32(float v);
template <>
__device__ __forceinline__ float from_f32<float>(float v) {
  return v;
}
template <>
__device__ __forceinline__ bf16 from_f32<bf16>(float v) {
  return __ushort_as_bfloat16(f32_to_bf16_bits(v));
}
template <>
__device__ __forceinline__ f16 from_f32<f16>(float v) {
  return __float2half_rn(v);  // IEEE round to nearest even, as the CPU's _Float16 conversion
}

// ---- host-side dtype dispatch: f(Tag<T>{}) with T the storage type of `t` ----

template <class T>
struct Tag {
  using type = T;
};

template <class F>
void dispatch_dtype(DType t, F&& f) {
  switch (t) {
    case DType::f32: f(Tag<float>{}); return;
    case DType::bf16: f(Tag<bf16>{}); return;
    case DType::f16: f(Tag<f16>{}); return;
  }
  SB_CHECK(false, "unknown dtype {}", static_cast<int>(t));
}

// min / max usable in host and device code (std::min is host-only without --expt-relaxed-constexpr).
template <class T>
__host__ __device__ __forceinline__ T imin(T a, T b) {
  return a < b ? a : b;
}
template <class T>
__host__ __device__ __forceinline__ T imax(T a, T b) {
  return a < b ? b : a;
}

// ---- launch geometry ----

constexpr int kBlock = 256;

// Blocks for a grid-stride loop over `count` items: enough to fill any current GPU, never more than
// the items need. Kernels loop with 64-bit indices, so any count is covered.
inline unsigned grid_for(std::int64_t count, int block = kBlock) {
  const std::int64_t need = (count + block - 1) / block;
  return static_cast<unsigned>(std::clamp<std::int64_t>(need, 1, 65535));
}

__device__ __forceinline__ std::int64_t global_thread() {
  return std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ std::int64_t grid_threads() { return std::int64_t(gridDim.x) * blockDim.x; }

// Sum of `v` over a 1-D block (blockDim.x a multiple of 32, at most 1024), valid in thread 0.
// Fixed shuffle tree then fixed order over warps: the same inputs give the same bits every run.
template <class T>
__device__ T block_sum(T v) {
  __shared__ T warp_sums[32];
  for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  T total = T(0);
  if (threadIdx.x == 0)
    for (int k = 0; k < int(blockDim.x / 32); ++k) total += warp_sums[k];
  __syncthreads();  // warp_sums may be reused by a following call
  return total;
}

}  // namespace scalebench::cuda::detail
