// bias_act.cu — bias + activation forward and ReLU backward (see bias_act.h). Grid-stride loops;
// the channel of flat index i is (i / inner) % c with inner = hw (NCHW) or 1 (NHWC), in 32-bit
// arithmetic when the tensor has fewer than 2^31 elements (64-bit division is many times slower).
// No vectorised (float4) loads: the loop is memory-bound already at one element per iteration.
#include "kernels/cuda/device_types.cuh"

#include "kernels/cuda/bias_act.h"
#include "kernels/cuda/check.h"

namespace scalebench::cuda {
namespace {

using namespace detail;

template <class T, class Index>
__global__ void bias_act_kernel(Index count, Index inner, Index c, const T* x, const float* bias, bool relu,
                                T* y) {
  const Index stride = Index(gridDim.x) * blockDim.x;
  for (Index i = Index(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    float v = to_f32(x[i]);
    if (bias) v += bias[(i / inner) % c];
    if (relu) v = v > 0.0f ? v : 0.0f;
    y[i] = from_f32<T>(v);
  }
}

template <class T>
__global__ void relu_backward_kernel(std::int64_t count, const T* y, const T* dy, T* dx) {
  for (std::int64_t i = global_thread(); i < count; i += grid_threads())
    dx[i] = to_f32(y[i]) > 0.0f ? dy[i] : from_f32<T>(0.0f);
}

}  // namespace

void bias_act_forward(const ChannelParams& p, const void* x, const float* bias, Activation act, void* y,
                      cudaStream_t stream) {
  SB_CHECK(p.n > 0 && p.c > 0 && p.hw > 0, "bias_act_forward: bad sizes n={} c={} hw={}", p.n, p.c, p.hw);
  const std::int64_t count = p.count();
  const std::int64_t inner = p.layout == Layout::NCHW ? p.hw : 1;
  const bool relu = act == Activation::relu;
  if (!bias && !relu && x == y) return;  // nothing to do
  dispatch_dtype(p.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xt = static_cast<const T*>(x);
    T* yt = static_cast<T*>(y);
    if (count <= INT32_MAX)
      bias_act_kernel<T, std::uint32_t><<<grid_for(count), kBlock, 0, stream>>>(
          std::uint32_t(count), std::uint32_t(inner), std::uint32_t(p.c), xt, bias, relu, yt);
    else
      bias_act_kernel<T, std::int64_t><<<grid_for(count), kBlock, 0, stream>>>(count, inner, p.c, xt, bias, relu, yt);
  });
  CUDA_CHECK(cudaGetLastError());
}

void relu_backward(std::int64_t count, DType dtype, const void* y, const void* dy, void* dx, cudaStream_t stream) {
  SB_CHECK(count >= 0, "relu_backward: count {} < 0", count);
  if (count == 0) return;
  dispatch_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    relu_backward_kernel<T><<<grid_for(count), kBlock, 0, stream>>>(count, static_cast<const T*>(y),
                                                                     static_cast<const T*>(dy), static_cast<T*>(dx));
  });
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace scalebench::cuda
