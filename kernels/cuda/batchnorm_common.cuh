// batchnorm_common.cuh — what the forward and backward of our own batch norm share (nvcc only;
// include after device_types.cuh): the cut of the rows into ranges (row_split.h) per layout, the
// workspace layout of the partials, the affine expression both directions evaluate (the backward's
// ReLU mask must see the forward's exact float operations) and the per-element pass over x.
// Not here: the reductions (batchnorm_forward.cu, batchnorm_backward.cu).
#pragma once

#include "kernels/common/row_split.h"
#include "kernels/cuda/batchnorm.h"

namespace scalebench::cuda::bn {

using namespace detail;

// NCHW: a block of kBlock threads walks one channel's range (contiguous hw runs): at least 8 values
// a thread. NHWC: a 32 × 8 block walks 32 adjacent channels of the range's rows (coalesced), at
// least 16 rows a thread. At most 1024 ranges: the partials stay small and one thread per channel
// adds them.
constexpr int kNhwcRows = 8;  // threadIdx.y extent of the NHWC kernels
inline RowSplit split_of(const BatchNormSpec& s) {
  const std::int64_t rows = std::int64_t(s.p.n) * s.p.hw;
  return s.layout == Layout::NCHW ? split_rows(rows, 8 * kBlock, 1024) : split_rows(rows, 16 * kNhwcRows, 1024);
}
inline std::int64_t rows_of(const BatchNormSpec& s) { return std::int64_t(s.p.n) * s.p.hw; }
inline std::int64_t count_of(const BatchNormSpec& s) { return rows_of(s) * s.p.c; }

// The forward's affine y = (x − centre)·scale + shift, each operation rounded on its own (no FMA
// contraction): the forward writes it and the backward's ReLU mask recomputes it, so both must be
// this one function.
__device__ __forceinline__ float affine(float x, float centre, float scale, float shift) {
  return __fadd_rn(__fmul_rn(__fsub_rn(x, centre), scale), shift);
}

// y = affine(x) per channel, max(·, 0) with relu. Channel of flat index i: (i / inner) % c, inner =
// hw (NCHW) or 1 (NHWC), in 32-bit arithmetic when it fits (as bias_act.cu).
template <class T, class Index>
__global__ void apply_affine(Index count, Index inner, Index c, const T* x, const float* centre, const float* scale,
                             const float* shift, bool relu, T* y) {
  const Index stride = Index(gridDim.x) * blockDim.x;
  for (Index i = Index(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    const Index ch = (i / inner) % c;
    float v = affine(to_f32(x[i]), centre[ch], scale[ch], shift[ch]);
    if (relu) v = v > 0.0f ? v : 0.0f;
    y[i] = from_f32<T>(v);
  }
}

template <class T>
void launch_apply(const BatchNormSpec& s, const T* x, const float* centre, const float* scale, const float* shift,
                  bool relu, T* y, cudaStream_t stream) {
  const std::int64_t count = count_of(s);
  const std::int64_t inner = s.layout == Layout::NCHW ? s.p.hw : 1;
  if (count <= INT32_MAX)
    apply_affine<T, std::uint32_t><<<grid_for(count), kBlock, 0, stream>>>(
        std::uint32_t(count), std::uint32_t(inner), std::uint32_t(s.p.c), x, centre, scale, shift, relu, y);
  else
    apply_affine<T, std::int64_t><<<grid_for(count), kBlock, 0, stream>>>(count, inner, s.p.c, x, centre, scale,
                                                                          shift, relu, y);
}

inline void validate(const BatchNormSpec& s, const char* what) {
  const auto& p = s.p;
  SB_CHECK(p.n > 0 && p.c > 0 && p.hw > 0, "{} (own kernels): bad sizes n={} c={} hw={}", what, p.n, p.c, p.hw);
  SB_CHECK(s.layout == Layout::NHWC || p.c <= 65535, "{} (own kernels): NCHW with {} channels exceeds the grid's y limit",
           what, p.c);
}

// The NCHW walk of one channel's rows [lo, hi): row r = img·hw + k lives at (img·c + ch)·hw + k, so
// the range is a few contiguous runs; fn(element index) for this thread's elements, in order.
template <class Fn>
__device__ __forceinline__ void for_range_nchw(int c, std::int64_t hw, int ch, std::int64_t lo, std::int64_t hi,
                                               Fn&& fn) {
  for (std::int64_t r = lo; r < hi;) {
    const std::int64_t img = r / hw, k0 = r - img * hw;
    const std::int64_t len = imin(hi - r, hw - k0);
    const std::int64_t base = (img * c + ch) * hw + k0;
    for (std::int64_t k = threadIdx.x; k < len; k += blockDim.x) fn(base + k);
    r += len;
  }
}

}  // namespace scalebench::cuda::bn
