// cast.cu — dtype conversion (see cast.h): one grid-stride kernel per (source, destination) pair,
// widening to f32 and rounding once with device_types.cuh's from_f32.
// No vectorised loads and no special same-type kernel (same dtype is a cudaMemcpyAsync).
#include "kernels/cuda/device_types.cuh"

#include "kernels/cuda/cast.h"
#include "kernels/cuda/check.h"

namespace scalebench::cuda {
namespace {

using namespace detail;

template <class S, class D>
__global__ void cast_kernel(std::int64_t count, const S* src, D* dst) {
  for (std::int64_t i = global_thread(); i < count; i += grid_threads()) dst[i] = from_f32<D>(to_f32(src[i]));
}

}  // namespace

void cast(std::int64_t count, DType src_dtype, const void* src, DType dst_dtype, void* dst, cudaStream_t stream) {
  SB_CHECK(count >= 0, "cast: count {} < 0", count);
  if (count == 0) return;
  if (src_dtype == dst_dtype) {
    if (src != dst)
      CUDA_CHECK(cudaMemcpyAsync(dst, src, std::size_t(count) * dtype_size(src_dtype), cudaMemcpyDeviceToDevice,
                                 stream));
    return;
  }
  dispatch_dtype(src_dtype, [&](auto src_tag) {
    using S = typename decltype(src_tag)::type;
    dispatch_dtype(dst_dtype, [&](auto dst_tag) {
      using D = typename decltype(dst_tag)::type;
      cast_kernel<S, D><<<grid_for(count), kBlock, 0, stream>>>(count, static_cast<const S*>(src), static_cast<D*>(dst));
    });
  });
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace scalebench::cuda
