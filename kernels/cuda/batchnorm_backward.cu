// batchnorm_backward.cu — our own batch norm backward (see batchnorm.h). Three launches: (1) per
// (range, channel) Σg and Σg·(x − mean) in fp32 with g the incoming gradient, masked to 0 where the
// fused ReLU's forward output was not positive (recomputed from x and the saved affine: the output
// is not read); (2) one thread per channel adds the ranges' partials in range order in double and
// forms dbeta, dgamma and dx's constants a, b, c0 as the CPU reference does; (3) dx = a·g +
// b·(x − mean) + c0 in one pass. Same ranges and trees as the forward (batchnorm_common.cuh).
// Not here: replica sums (sync_batchnorm.cu), accumulation into existing gradients.
#include "kernels/cuda/device_types.cuh"

#include "kernels/cuda/batchnorm_common.cuh"
#include "kernels/cuda/check.h"

namespace scalebench::cuda {
namespace {

using namespace detail;
using bn::kNhwcRows;

// A channel's constants for the gradient mask: relu false means no mask.
struct Mask {
  bool relu;
  float mean, scale, shift;
  __device__ __forceinline__ float operator()(float x, float g) const {
    return !relu || bn::affine(x, mean, scale, shift) > 0.0f ? g : 0.0f;
  }
};

__device__ __forceinline__ Mask mask_of(int ch, const float* mean, const float* scale, const float* shift) {
  return scale ? Mask{true, mean[ch], scale[ch], shift[ch]} : Mask{false, mean[ch], 0.0f, 0.0f};
}

// (1) NCHW: block (range blockIdx.x, channel blockIdx.y). Partials: Σg [splits][c], Σg·(x − mean) [splits][c].
template <class T>
__global__ void sums_nchw(int c, std::int64_t hw, std::int64_t rows, std::int64_t rows_per_split, const T* x,
                          const T* dy, const float* mean, const float* scale, const float* shift, float* part_g,
                          float* part_gx) {
  const int ch = blockIdx.y, split = blockIdx.x;
  const std::int64_t lo = std::int64_t(split) * rows_per_split, hi = imin(lo + rows_per_split, rows);
  const Mask mask = mask_of(ch, mean, scale, shift);
  float sg = 0.0f, sgx = 0.0f;
  bn::for_range_nchw(c, hw, ch, lo, hi, [&](std::int64_t e) {
    const float xv = to_f32(x[e]), g = mask(xv, to_f32(dy[e]));
    sg += g;
    sgx += g * (xv - mask.mean);
  });
  sg = block_sum(sg);
  sgx = block_sum(sgx);
  if (threadIdx.x == 0) part_g[std::int64_t(split) * c + ch] = sg, part_gx[std::int64_t(split) * c + ch] = sgx;
}

// (1) NHWC: block (32 channels from 32·blockIdx.x, range blockIdx.y); thread (channel, every 8th row).
template <class T>
__global__ void sums_nhwc(int c, std::int64_t rows, std::int64_t rows_per_split, const T* x, const T* dy,
                          const float* mean, const float* scale, const float* shift, float* part_g, float* part_gx) {
  __shared__ float rows_g[kNhwcRows][33], rows_gx[kNhwcRows][33];
  const int ch = blockIdx.x * 32 + threadIdx.x, split = blockIdx.y;
  const std::int64_t lo = std::int64_t(split) * rows_per_split, hi = imin(lo + rows_per_split, rows);
  float sg = 0.0f, sgx = 0.0f;
  if (ch < c) {
    const Mask mask = mask_of(ch, mean, scale, shift);
    for (std::int64_t r = lo + threadIdx.y; r < hi; r += kNhwcRows) {
      const float xv = to_f32(x[r * c + ch]), g = mask(xv, to_f32(dy[r * c + ch]));
      sg += g;
      sgx += g * (xv - mask.mean);
    }
  }
  rows_g[threadIdx.y][threadIdx.x] = sg, rows_gx[threadIdx.y][threadIdx.x] = sgx;
  __syncthreads();
  if (threadIdx.y == 0 && ch < c) {
    float tg = 0.0f, tgx = 0.0f;
    for (int k = 0; k < kNhwcRows; ++k) tg += rows_g[k][threadIdx.x], tgx += rows_gx[k][threadIdx.x];
    part_g[std::int64_t(split) * c + ch] = tg, part_gx[std::int64_t(split) * c + ch] = tgx;
  }
}

// (2) One thread per channel: the CPU reference's arithmetic (kernels/cpu/batchnorm.cpp,
// batchnorm_backward): dbeta = Σg, dgamma = Σg·(x − mean)·invstd, dx = a·g + b·(x − mean) + c0.
__global__ void finalize_backward(int c, double count, int splits, const float* part_g, const float* part_gx,
                                  const float* gamma, const float* save_invstd, float* dgamma, float* dbeta,
                                  float* consts) {
  const int ch = blockIdx.x * blockDim.x + threadIdx.x;
  if (ch >= c) return;
  double sg = 0, sgx = 0;
  for (int s = 0; s < splits; ++s) sg += part_g[std::int64_t(s) * c + ch], sgx += part_gx[std::int64_t(s) * c + ch];
  const double invstd = save_invstd[ch];
  dbeta[ch] = static_cast<float>(sg);
  dgamma[ch] = static_cast<float>(sgx * invstd);
  const double a = gamma[ch] * invstd;
  consts[ch] = static_cast<float>(a);
  consts[c + ch] = static_cast<float>(-a * invstd * invstd * sgx / count);
  consts[2 * c + ch] = static_cast<float>(-a * sg / count);
}

// (3) dx = a·g + b·(x − mean) + c0, rounded as the CPU's float expression (no FMA contraction).
template <class T, class Index>
__global__ void dx_kernel(Index count, Index inner, Index c, const T* x, const T* dy, const float* mean,
                          const float* scale, const float* shift, const float* consts, T* dx) {
  const Index stride = Index(gridDim.x) * blockDim.x;
  for (Index i = Index(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    const int ch = int((i / inner) % c);
    const Mask mask = mask_of(ch, mean, scale, shift);
    const float xv = to_f32(x[i]), g = mask(xv, to_f32(dy[i]));
    const float a = consts[ch], b = consts[c + ch], c0 = consts[2 * c + ch];
    dx[i] = from_f32<T>(__fadd_rn(__fadd_rn(__fmul_rn(a, g), __fmul_rn(b, __fsub_rn(xv, mask.mean))), c0));
  }
}

}  // namespace

void batchnorm_backward(const BatchNormSpec& s, const void* x, const void* dy, const float* gamma,
                        const float* save_mean, const float* save_invstd, const float* relu_scale,
                        const float* relu_shift, void* dx, float* dgamma, float* dbeta, Workspace& ws,
                        cudaStream_t stream) {
  bn::validate(s, "batchnorm_backward");
  SB_CHECK(x && dy && gamma && save_mean && save_invstd && dx && dgamma && dbeta,
           "batchnorm_backward (own kernels): null operand");
  SB_CHECK((relu_scale == nullptr) == (relu_shift == nullptr),
           "batchnorm_backward (own kernels): a fused ReLU needs both scale and shift");
  const RowSplit sp = bn::split_of(s);
  const std::int64_t rows = bn::rows_of(s), count = bn::count_of(s);
  float* part_g = static_cast<float*>(ws.get(batchnorm_workspace_bytes(s)));
  float* part_gx = part_g + std::size_t(sp.splits) * s.p.c;
  float* consts = part_gx + std::size_t(sp.splits) * s.p.c;  // a, b, c0 [3][c]
  dispatch_dtype(s.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T *xt = static_cast<const T*>(x), *dyt = static_cast<const T*>(dy);
    if (s.layout == Layout::NCHW)
      sums_nchw<T><<<dim3(sp.splits, s.p.c), kBlock, 0, stream>>>(s.p.c, s.p.hw, rows, sp.rows_per_split, xt, dyt,
                                                                  save_mean, relu_scale, relu_shift, part_g, part_gx);
    else
      sums_nhwc<T><<<dim3((s.p.c + 31) / 32, sp.splits), dim3(32, kNhwcRows), 0, stream>>>(
          s.p.c, rows, sp.rows_per_split, xt, dyt, save_mean, relu_scale, relu_shift, part_g, part_gx);
  });
  CUDA_CHECK(cudaGetLastError());
  finalize_backward<<<unsigned((s.p.c + kBlock - 1) / kBlock), kBlock, 0, stream>>>(
      s.p.c, double(rows), sp.splits, part_g, part_gx, gamma, save_invstd, dgamma, dbeta, consts);
  CUDA_CHECK(cudaGetLastError());
  const std::int64_t inner = s.layout == Layout::NCHW ? s.p.hw : 1;
  dispatch_dtype(s.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T *xt = static_cast<const T*>(x), *dyt = static_cast<const T*>(dy);
    T* dxt = static_cast<T*>(dx);
    if (count <= INT32_MAX)
      dx_kernel<T, std::uint32_t><<<grid_for(count), kBlock, 0, stream>>>(
          std::uint32_t(count), std::uint32_t(inner), std::uint32_t(s.p.c), xt, dyt, save_mean, relu_scale,
          relu_shift, consts, dxt);
    else
      dx_kernel<T, std::int64_t><<<grid_for(count), kBlock, 0, stream>>>(count, inner, s.p.c, xt, dyt, save_mean,
                                                                        relu_scale, relu_shift, consts, dxt);
  });
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace scalebench::cuda
