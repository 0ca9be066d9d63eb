// concat_crop.cu — U-Net skip join (see concat_crop.h). Every kernel has one thread per element of
// the tensor it writes (coalesced stores) and reads the one source element that maps to it, so
// no memset is needed: dskip is written everywhere, with 0 outside the crop window. Elements are
// moved as raw 16- or 32-bit words. Index arithmetic is 32-bit when every tensor has < 2^31
// elements.
#include "kernels/cuda/device_types.cuh"

#include "kernels/cuda/concat_crop.h"
#include "kernels/cuda/check.h"

namespace scalebench::cuda {
namespace {

using namespace detail;

// Sizes the kernels need, in the index type I.
template <class I>
struct Dims {
  I c_skip, c_up, c_out, h, w, h_skip, w_skip, off_h, off_w;
};

template <class I>
Dims<I> dims_of(const ConcatCropParams& p) {
  return {I(p.c_skip), I(p.c_up),   I(p.c_skip + p.c_up), I(p.h),    I(p.w),
          I(p.h_skip), I(p.w_skip), I(p.off_h()),         I(p.off_w())};
}

// Element (img, ch, r, col) of a tensor with c channels and hh×ww pixels.
template <class I>
__device__ __forceinline__ I at(bool nhwc, I img, I ch, I r, I col, I c, I hh, I ww) {
  return nhwc ? ((img * hh + r) * ww + col) * c + ch : ((img * c + ch) * hh + r) * ww + col;
}

// out element i -> (img, ch, r, col) in out's layout, then read skip (cropped) or up.
template <class E, class I>
__global__ void forward_kernel(I count, bool nhwc, Dims<I> d, const E* skip, const E* up, E* out) {
  const I stride = I(gridDim.x) * blockDim.x;
  for (I i = I(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    I img, ch, r, col;
    if (nhwc) {
      ch = i % d.c_out;
      I t = i / d.c_out;
      col = t % d.w;
      t /= d.w;
      r = t % d.h;
      img = t / d.h;
    } else {
      col = i % d.w;
      I t = i / d.w;
      r = t % d.h;
      t /= d.h;
      ch = t % d.c_out;
      img = t / d.c_out;
    }
    out[i] = ch < d.c_skip
                 ? skip[at(nhwc, img, ch, r + d.off_h, col + d.off_w, d.c_skip, d.h_skip, d.w_skip)]
                 : up[at(nhwc, img, I(ch - d.c_skip), r, col, d.c_up, d.h, d.w)];
  }
}

// dskip element i: dout's value inside the crop window, 0 outside.
template <class E, class I>
__global__ void backward_skip_kernel(I count, bool nhwc, Dims<I> d, const E* dout, E* dskip) {
  const I stride = I(gridDim.x) * blockDim.x;
  for (I i = I(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    I img, ch, r, col;
    if (nhwc) {
      ch = i % d.c_skip;
      I t = i / d.c_skip;
      col = t % d.w_skip;
      t /= d.w_skip;
      r = t % d.h_skip;
      img = t / d.h_skip;
    } else {
      col = i % d.w_skip;
      I t = i / d.w_skip;
      r = t % d.h_skip;
      t /= d.h_skip;
      ch = t % d.c_skip;
      img = t / d.c_skip;
    }
    // Unsigned-safe window test: r - off_h in [0, h) without forming a negative value.
    const bool inside = r >= d.off_h && r < d.off_h + d.h && col >= d.off_w && col < d.off_w + d.w;
    dskip[i] = inside ? dout[at(nhwc, img, ch, I(r - d.off_h), I(col - d.off_w), d.c_out, d.h, d.w)] : E(0);
  }
}

// dup element i: the up part of dout.
template <class E, class I>
__global__ void backward_up_kernel(I count, bool nhwc, Dims<I> d, const E* dout, E* dup) {
  const I stride = I(gridDim.x) * blockDim.x;
  for (I i = I(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    I img, ch, pix;  // pix = r·w + col
    const I plane = d.h * d.w;
    if (nhwc) {
      ch = i % d.c_up;
      const I t = i / d.c_up;
      pix = t % plane;
      img = t / plane;
      dup[i] = dout[(img * plane + pix) * d.c_out + d.c_skip + ch];
    } else {
      pix = i % plane;
      const I t = i / plane;
      ch = t % d.c_up;
      img = t / d.c_up;
      dup[i] = dout[(img * d.c_out + d.c_skip + ch) * plane + pix];
    }
  }
}

void validate(const ConcatCropParams& p) {
  SB_CHECK(p.n > 0 && p.c_skip > 0 && p.c_up > 0 && p.h > 0 && p.w > 0,
           "concat_crop: bad sizes n={} c_skip={} c_up={} h={} w={}", p.n, p.c_skip, p.c_up, p.h, p.w);
  SB_CHECK(p.h_skip >= p.h && p.w_skip >= p.w, "concat_crop: skip {}x{} smaller than up {}x{}", p.h_skip, p.w_skip,
           p.h, p.w);
}

// The largest element count any of the three tensors has.
std::int64_t largest(const ConcatCropParams& p) {
  const std::int64_t out = std::int64_t(p.n) * (p.c_skip + p.c_up) * p.h * p.w;
  const std::int64_t skip = std::int64_t(p.n) * p.c_skip * p.h_skip * p.w_skip;
  return std::max(out, skip);
}

// f(Tag<E>) with E the raw word of the dtype's size (the kernels only move values).
template <class F>
void dispatch_word(DType t, F&& f) {
  if (dtype_size(t) == 4)
    f(Tag<std::uint32_t>{});
  else
    f(Tag<std::uint16_t>{});
}

}  // namespace

void concat_crop_forward(const ConcatCropParams& p, Layout layout, DType dtype, const void* skip,
                         const void* up, void* out, cudaStream_t stream) {
  validate(p);
  const bool nhwc = layout == Layout::NHWC;
  const std::int64_t count = std::int64_t(p.n) * (p.c_skip + p.c_up) * p.h * p.w;
  dispatch_word(dtype, [&](auto tag) {
    using E = typename decltype(tag)::type;
    const auto* s = static_cast<const E*>(skip);
    const auto* u = static_cast<const E*>(up);
    auto* o = static_cast<E*>(out);
    if (largest(p) <= INT32_MAX)
      forward_kernel<E, std::uint32_t><<<grid_for(count), kBlock, 0, stream>>>(std::uint32_t(count), nhwc,
                                                                               dims_of<std::uint32_t>(p), s, u, o);
    else
      forward_kernel<E, std::int64_t><<<grid_for(count), kBlock, 0, stream>>>(count, nhwc, dims_of<std::int64_t>(p),
                                                                              s, u, o);
  });
  CUDA_CHECK(cudaGetLastError());
}

void concat_crop_backward(const ConcatCropParams& p, Layout layout, DType dtype, const void* dout,
                          void* dskip, void* dup, cudaStream_t stream) {
  validate(p);
  const bool nhwc = layout == Layout::NHWC;
  const std::int64_t n_skip = std::int64_t(p.n) * p.c_skip * p.h_skip * p.w_skip;
  const std::int64_t n_up = std::int64_t(p.n) * p.c_up * p.h * p.w;
  const bool small = largest(p) <= INT32_MAX;
  dispatch_word(dtype, [&](auto tag) {
    using E = typename decltype(tag)::type;
    const auto* d = static_cast<const E*>(dout);
    auto* ds = static_cast<E*>(dskip);
    auto* du = static_cast<E*>(dup);
    if (small) {
      const auto dm = dims_of<std::uint32_t>(p);
      backward_skip_kernel<E, std::uint32_t><<<grid_for(n_skip), kBlock, 0, stream>>>(std::uint32_t(n_skip), nhwc,
                                                                                      dm, d, ds);
      CUDA_CHECK(cudaGetLastError());
      backward_up_kernel<E, std::uint32_t><<<grid_for(n_up), kBlock, 0, stream>>>(std::uint32_t(n_up), nhwc, dm, d,
                                                                                  du);
    } else {
      const auto dm = dims_of<std::int64_t>(p);
      backward_skip_kernel<E, std::int64_t><<<grid_for(n_skip), kBlock, 0, stream>>>(n_skip, nhwc, dm, d, ds);
      CUDA_CHECK(cudaGetLastError());
      backward_up_kernel<E, std::int64_t><<<grid_for(n_up), kBlock, 0, stream>>>(n_up, nhwc, dm, d, du);
    }
  });
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace scalebench::cuda
