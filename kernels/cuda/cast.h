// cast.h — element-wise conversion between f32, bf16 and f16 on the GPU, for gradient compression
// and bf16 compute copies. f32 -> bf16 rounds to nearest even with the same bits as the CPU's
// compression (harness/comm/pipeline.cpp's to_bf16, NaN kept quiet with its sign and top payload);
// f32 -> f16 is IEEE round to nearest even (__float2half_rn, as _Float16 on the CPU; NaN payloads may
// differ, a NaN stays a NaN); widening is exact. bf16 <-> f16 goes through f32 (one rounding).
// Same dtype is a device copy.
// Not here: stochastic rounding, scaling (loss scaling belongs to the caller), fp8.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/common/tensor.h"

namespace scalebench::cuda {

// dst [count] of dst_dtype = src [count] of src_dtype. src and dst must not overlap (unless equal
// dtypes and equal pointers, which is a no-op).
void cast(std::int64_t count, DType src_dtype, const void* src, DType dst_dtype, void* dst, cudaStream_t stream);

}  // namespace scalebench::cuda
