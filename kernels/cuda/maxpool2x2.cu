// maxpool2x2.cu — 2×2/2 max pooling with a kept argmax (see maxpool2x2.h). Forward: one thread per
// output element reads its window and writes the maximum and its index. Backward: one thread per
// input element reads the argmax and dy of the window it lies in and writes dy if it is the argmax,
// else 0 — a gather rather than a zero fill plus a scatter, so dx is written once, coalesced, with
// no atomics (windows do not overlap, so the two are the same result). Flat indices in 32-bit
// arithmetic when the tensor fits, as bias_act.cu. NCHW and NHWC differ only in where (plane
// position, channel) lives.
// Not here: cuDNN's pooling (kernels/cudnn/pooling.h), the layer's choice between them.
#include "kernels/cuda/device_types.cuh"

#include "kernels/cuda/check.h"
#include "kernels/cuda/maxpool2x2.h"

namespace scalebench::cuda {
namespace {

using namespace detail;

// Element (image i, channel ch, row r, column q) of an [n, c, rows, cols] tensor in `nhwc` or NCHW.
template <class Index>
__device__ __forceinline__ Index at(bool nhwc, Index c, Index rows, Index cols, Index i, Index ch, Index r, Index q) {
  return nhwc ? ((i * rows + r) * cols + q) * c + ch : ((i * c + ch) * rows + r) * cols + q;
}

// Flat output index o → (i, ch, oh, ow) for an [n, c, ho, wo] tensor in `nhwc` or NCHW.
template <class Index>
__device__ __forceinline__ void coords(bool nhwc, Index c, Index ho, Index wo, Index o, Index& i, Index& ch, Index& oh,
                                       Index& ow) {
  if (nhwc) {
    ch = o % c, o /= c;
    ow = o % wo, o /= wo;
    oh = o % ho, i = o / ho;
  } else {
    ow = o % wo, o /= wo;
    oh = o % ho, o /= ho;
    ch = o % c, i = o / c;
  }
}

template <class T, class Index>
__global__ void forward_kernel(Index count, bool nhwc, Index c, Index h, Index w, const T* x, T* y,
                               std::int32_t* argmax) {
  const Index ho = h / 2, wo = w / 2, stride = Index(gridDim.x) * blockDim.x;
  for (Index o = Index(blockIdx.x) * blockDim.x + threadIdx.x; o < count; o += stride) {
    Index i, ch, oh, ow;
    coords(nhwc, c, ho, wo, o, i, ch, oh, ow);
    const Index r = 2 * oh, q = 2 * ow;
    // The CPU's pool_row: start at (0,0), then strict > in row-major order.
    T best_v = x[at(nhwc, c, h, w, i, ch, r, q)];
    float best = to_f32(best_v);
    std::int32_t idx = std::int32_t(r * w + q);
    const auto take = [&](Index rr, Index qq) {
      const T v = x[at(nhwc, c, h, w, i, ch, rr, qq)];
      if (to_f32(v) > best) best = to_f32(v), best_v = v, idx = std::int32_t(rr * w + qq);
    };
    take(r, q + 1);
    take(r + 1, q);
    take(r + 1, q + 1);
    y[o] = best_v;  // the input's bits, not a rounding of them
    argmax[o] = idx;
  }
}

template <class T, class Index>
__global__ void backward_kernel(Index count, bool nhwc, Index c, Index h, Index w, const T* dy,
                                const std::int32_t* argmax, T* dx) {
  const Index ho = h / 2, wo = w / 2, stride = Index(gridDim.x) * blockDim.x;
  for (Index e = Index(blockIdx.x) * blockDim.x + threadIdx.x; e < count; e += stride) {
    Index i, ch, r, q;
    coords(nhwc, c, h, w, e, i, ch, r, q);
    T v = from_f32<T>(0.0f);
    const Index oh = r / 2, ow = q / 2;
    if (oh < ho && ow < wo) {  // odd planes: the last row/column is in no window
      const Index o = at(nhwc, c, ho, wo, i, ch, oh, ow);
      if (argmax[o] == std::int32_t(r * w + q)) v = dy[o];
    }
    dx[e] = v;
  }
}

void validate(const Pool2x2Shape& s, const char* what) {
  SB_CHECK(s.n > 0 && s.c > 0 && s.h >= 2 && s.w >= 2, "{} (own kernel): bad sizes n={} c={} h={} w={}", what, s.n,
           s.c, s.h, s.w);
  SB_CHECK(std::int64_t(s.h) * s.w <= INT32_MAX, "{} (own kernel): a {}x{} plane overflows the int32 argmax", what,
           s.h, s.w);
}

// f(Index) with Index 32-bit when every flat index of the input fits, else 64-bit.
template <class F>
void with_index(const Pool2x2Shape& s, F&& f) {
  if (std::int64_t(s.n) * s.c * s.h * s.w <= INT32_MAX)
    f(std::uint32_t{});
  else
    f(std::int64_t{});
}

}  // namespace

void maxpool2x2_forward(const Pool2x2Shape& s, const void* x, void* y, std::int32_t* argmax, cudaStream_t stream) {
  validate(s, "maxpool2x2_forward");
  SB_CHECK(x && y && argmax, "maxpool2x2_forward (own kernel): null operand");
  const std::int64_t count = std::int64_t(s.n) * s.c * (s.h / 2) * (s.w / 2);
  const bool nhwc = s.layout == Layout::NHWC;
  dispatch_dtype(s.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    with_index(s, [&](auto index) {
      using Index = decltype(index);
      forward_kernel<T, Index><<<grid_for(count), kBlock, 0, stream>>>(
          Index(count), nhwc, Index(s.c), Index(s.h), Index(s.w), static_cast<const T*>(x), static_cast<T*>(y), argmax);
    });
  });
  CUDA_CHECK(cudaGetLastError());
}

void maxpool2x2_backward(const Pool2x2Shape& s, const void* dy, const std::int32_t* argmax, void* dx,
                         cudaStream_t stream) {
  validate(s, "maxpool2x2_backward");
  SB_CHECK(dy && argmax && dx, "maxpool2x2_backward (own kernel): null operand");
  const std::int64_t count = std::int64_t(s.n) * s.c * s.h * s.w;
  const bool nhwc = s.layout == Layout::NHWC;
  dispatch_dtype(s.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    with_index(s, [&](auto index) {
      using Index = decltype(index);
      backward_kernel<T, Index><<<grid_for(count), kBlock, 0, stream>>>(
          Index(count), nhwc, Index(s.c), Index(s.h), Index(s.w), static_cast<const T*>(dy), argmax,
          static_cast<T*>(dx));
    });
  });
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace scalebench::cuda
