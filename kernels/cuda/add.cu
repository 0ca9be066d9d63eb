// add.cu — dst += src and x *= s (see add.h): grid-stride kernels.
#include "kernels/cuda/device_types.cuh"

#include "kernels/cuda/add.h"
#include "kernels/cuda/check.h"

namespace scalebench::cuda {
namespace {

using namespace detail;

template <class T>
__global__ void add_kernel(std::int64_t count, T* dst, const T* src) {
  for (std::int64_t i = global_thread(); i < count; i += grid_threads())
    dst[i] = from_f32<T>(to_f32(dst[i]) + to_f32(src[i]));
}

__global__ void scale_kernel(std::int64_t count, float* x, float s) {
  for (std::int64_t i = global_thread(); i < count; i += grid_threads()) x[i] = __fmul_rn(x[i], s);
}

}  // namespace

void add_inplace(std::int64_t count, DType dtype, void* dst, const void* src, cudaStream_t stream) {
  SB_CHECK(count >= 0, "add_inplace: count {} < 0", count);
  if (count == 0) return;
  dispatch_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    add_kernel<T><<<grid_for(count), kBlock, 0, stream>>>(count, static_cast<T*>(dst), static_cast<const T*>(src));
  });
  CUDA_CHECK(cudaGetLastError());
}

void scale_inplace(std::int64_t count, float* x, float s, cudaStream_t stream) {
  SB_CHECK(count >= 0, "scale_inplace: count {} < 0", count);
  if (count == 0) return;
  scale_kernel<<<grid_for(count), kBlock, 0, stream>>>(count, x, s);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace scalebench::cuda
