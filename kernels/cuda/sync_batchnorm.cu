// sync_batchnorm.cu — per-channel sums and element-wise passes of synchronised batch norm (see
// sync_batchnorm.h).
#include "kernels/cuda/device_types.cuh"

#include "kernels/cuda/check.h"
#include "kernels/cuda/sync_batchnorm.h"

namespace scalebench::cuda {
namespace {

using namespace detail;

// Index of element (sample i, channel ch, position k).
__device__ __forceinline__ std::int64_t at(const BnShape& s, int i, int ch, int k) {
  return s.layout == Layout::NCHW ? (std::int64_t(i) * s.c + ch) * s.hw + k : (std::int64_t(i) * s.hw + k) * s.c + ch;
}
// Channel of flat element e.
__device__ __forceinline__ int channel_of(const BnShape& s, std::int64_t e) {
  return s.layout == Layout::NCHW ? int((e / s.hw) % s.c) : int(e % s.c);
}

// One block per channel (blockIdx.x), a fixed stride over the channel's n·hw values.
template <class T>
__global__ void channel_sums(BnShape s, const T* x, const double* mean, double* out) {
  const int ch = blockIdx.x;
  const double m = mean ? mean[ch] : 0.0;
  double acc = 0;
  for (std::int64_t j = threadIdx.x; j < std::int64_t(s.n) * s.hw; j += blockDim.x) {
    const double v = double(to_f32(x[at(s, int(j / s.hw), ch, int(j % s.hw))]));
    acc += mean ? (v - m) * (v - m) : v;
  }
  acc = block_sum(acc);
  if (threadIdx.x == 0) out[ch] = acc;
}

template <class T>
__global__ void backward_sums(BnShape s, const T* x, const T* dy, const float* mean, double* out) {
  const int ch = blockIdx.x;
  const double m = mean[ch];
  double sdy = 0, sdyx = 0;
  for (std::int64_t j = threadIdx.x; j < std::int64_t(s.n) * s.hw; j += blockDim.x) {
    const std::int64_t e = at(s, int(j / s.hw), ch, int(j % s.hw));
    const double d = double(to_f32(dy[e]));
    sdy += d;
    sdyx += d * (double(to_f32(x[e])) - m);
  }
  sdy = block_sum(sdy);
  sdyx = block_sum(sdyx);
  if (threadIdx.x == 0) out[ch] = sdy, out[s.c + ch] = sdyx;
}

template <class T>
__global__ void affine(BnShape s, std::int64_t count, const T* x, const float* centre, const float* scale,
                       const float* shift, T* y) {
  for (std::int64_t e = global_thread(); e < count; e += grid_threads()) {
    const int ch = channel_of(s, e);
    y[e] = from_f32<T>(__fadd_rn(__fmul_rn(__fsub_rn(to_f32(x[e]), centre[ch]), scale[ch]), shift[ch]));
  }
}

template <class T>
__global__ void backward_dx(BnShape s, std::int64_t count, const T* x, const T* dy, const float* mean, const float* a,
                            const float* b, const float* c0, T* dx) {
  for (std::int64_t e = global_thread(); e < count; e += grid_threads()) {
    const int ch = channel_of(s, e);
    const float v = __fadd_rn(__fadd_rn(__fmul_rn(a[ch], to_f32(dy[e])), __fmul_rn(b[ch], __fsub_rn(to_f32(x[e]), mean[ch]))),
                              c0[ch]);
    dx[e] = from_f32<T>(v);
  }
}

std::int64_t count_of(const BnShape& s) { return std::int64_t(s.n) * s.c * s.hw; }

void check_shape(const BnShape& s) {
  SB_CHECK(s.n > 0 && s.c > 0 && s.hw > 0, "sync batchnorm: bad sizes n={} c={} hw={}", s.n, s.c, s.hw);
}

}  // namespace

void bn_channel_sums(const BnShape& s, const void* x, double* sums, cudaStream_t stream) {
  check_shape(s);
  dispatch_dtype(s.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    channel_sums<T><<<s.c, kBlock, 0, stream>>>(s, static_cast<const T*>(x), nullptr, sums);
  });
  CUDA_CHECK(cudaGetLastError());
}

void bn_centred_squares(const BnShape& s, const void* x, const double* mean, double* sq, cudaStream_t stream) {
  check_shape(s);
  dispatch_dtype(s.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    channel_sums<T><<<s.c, kBlock, 0, stream>>>(s, static_cast<const T*>(x), mean, sq);
  });
  CUDA_CHECK(cudaGetLastError());
}

void bn_affine(const BnShape& s, const void* x, const float* centre, const float* scale, const float* shift, void* y,
               cudaStream_t stream) {
  check_shape(s);
  const std::int64_t n = count_of(s);
  dispatch_dtype(s.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    affine<T><<<grid_for(n), kBlock, 0, stream>>>(s, n, static_cast<const T*>(x), centre, scale, shift,
                                                  static_cast<T*>(y));
  });
  CUDA_CHECK(cudaGetLastError());
}

void bn_backward_sums(const BnShape& s, const void* x, const void* dy, const float* mean, double* sums,
                      cudaStream_t stream) {
  check_shape(s);
  dispatch_dtype(s.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    backward_sums<T><<<s.c, kBlock, 0, stream>>>(s, static_cast<const T*>(x), static_cast<const T*>(dy), mean, sums);
  });
  CUDA_CHECK(cudaGetLastError());
}

void bn_backward_dx(const BnShape& s, const void* x, const void* dy, const float* mean, const float* a, const float* b,
                    const float* c0, void* dx, cudaStream_t stream) {
  check_shape(s);
  const std::int64_t n = count_of(s);
  dispatch_dtype(s.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    backward_dx<T><<<grid_for(n), kBlock, 0, stream>>>(s, n, static_cast<const T*>(x), static_cast<const T*>(dy), mean,
                                                       a, b, c0, static_cast<T*>(dx));
  });
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace scalebench::cuda
