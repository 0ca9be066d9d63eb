// batchnorm_forward.cu — our own batch norm forward, training and eval (see batchnorm.h).
// Training, three launches: (1) per (range, channel) the count, mean and centred sum of squares of
// the range's values — each thread a Welford pass in fp32 over its values, merged by Chan's formula
// in a fixed shuffle tree and then warp by warp in order; (2) one thread per channel merges the
// ranges' partials in range order in double (Welford/Chan rather than Σx and Σx²: no cancellation
// when the mean is large against the spread) and forms the statistics, the running statistics and
// the affine exactly as the CPU reference forms them; (3) y = (x − mean)·scale + shift, with the
// ReLU, in one pass. Eval: the affine from the running statistics, then (3).
// Not here: the backward (batchnorm_backward.cu), replica sums (sync_batchnorm.cu).
#include "kernels/cuda/device_types.cuh"

#include "kernels/cuda/batchnorm_common.cuh"
#include "kernels/cuda/check.h"

namespace scalebench::cuda {
namespace {

using namespace detail;
using bn::kNhwcRows;

// Count, mean and Σ(x − mean)² of some values; n is exact in float up to 2^24 (a range is smaller).
// Trivial (no member initialisers) so that it may live in __shared__ memory; Moments{} is empty.
struct Moments {
  float n, mean, m2;
};

__device__ __forceinline__ void push(Moments& m, float x) {
  m.n += 1.0f;
  const float d = x - m.mean;
  m.mean += __fdividef(d, m.n);  // 2 ulp: the m2 update below uses the mean it produced, so m2 stays consistent
  m.m2 += d * (x - m.mean);
}

// Chan et al.'s pairwise merge; either side may be empty.
__device__ __forceinline__ Moments merge(Moments a, Moments b) {
  if (b.n == 0.0f) return a;
  if (a.n == 0.0f) return b;
  const float n = a.n + b.n, d = b.mean - a.mean, wb = b.n / n;
  return {n, a.mean + d * wb, a.m2 + b.m2 + d * d * a.n * wb};
}

__device__ __forceinline__ Moments shfl_down(const Moments& m, int off) {
  return {__shfl_down_sync(0xffffffffu, m.n, off), __shfl_down_sync(0xffffffffu, m.mean, off),
          __shfl_down_sync(0xffffffffu, m.m2, off)};
}

// Merge over a 1-D block (blockDim.x a multiple of 32), valid in thread 0; a fixed tree.
__device__ Moments block_merge(Moments m) {
  __shared__ Moments warps[32];
  for (int off = 16; off > 0; off /= 2) m = merge(m, shfl_down(m, off));
  if (threadIdx.x % 32 == 0) warps[threadIdx.x / 32] = m;
  __syncthreads();
  Moments total{};
  if (threadIdx.x == 0)
    for (int k = 0; k < int(blockDim.x / 32); ++k) total = merge(total, warps[k]);
  return total;
}

// (1) NCHW: block (range blockIdx.x, channel blockIdx.y). Partials: mean [splits][c], m2 [splits][c].
template <class T>
__global__ void stats_nchw(int c, std::int64_t hw, std::int64_t rows, std::int64_t rows_per_split, const T* x,
                           float* part_mean, float* part_m2) {
  const int ch = blockIdx.y, split = blockIdx.x;
  const std::int64_t lo = std::int64_t(split) * rows_per_split, hi = imin(lo + rows_per_split, rows);
  Moments m{};
  bn::for_range_nchw(c, hw, ch, lo, hi, [&](std::int64_t e) { push(m, to_f32(x[e])); });
  m = block_merge(m);
  if (threadIdx.x == 0) part_mean[std::int64_t(split) * c + ch] = m.mean, part_m2[std::int64_t(split) * c + ch] = m.m2;
}

// (1) NHWC: block (32 channels from 32·blockIdx.x, range blockIdx.y); thread (channel, every 8th row).
template <class T>
__global__ void stats_nhwc(int c, std::int64_t rows, std::int64_t rows_per_split, const T* x, float* part_mean,
                           float* part_m2) {
  __shared__ Moments rowm[kNhwcRows][32];
  const int ch = blockIdx.x * 32 + threadIdx.x, split = blockIdx.y;
  const std::int64_t lo = std::int64_t(split) * rows_per_split, hi = imin(lo + rows_per_split, rows);
  Moments m{};
  if (ch < c)
    for (std::int64_t r = lo + threadIdx.y; r < hi; r += kNhwcRows) push(m, to_f32(x[r * c + ch]));
  rowm[threadIdx.y][threadIdx.x] = m;
  __syncthreads();
  if (threadIdx.y == 0 && ch < c) {
    Moments total{};
    for (int k = 0; k < kNhwcRows; ++k) total = merge(total, rowm[k][threadIdx.x]);
    part_mean[std::int64_t(split) * c + ch] = total.mean, part_m2[std::int64_t(split) * c + ch] = total.m2;
  }
}

// (2) One thread per channel: the ranges' partials merged in range order in double, then the CPU
// reference's arithmetic (kernels/cpu/batchnorm.cpp, batchnorm_forward_train) line for line.
__global__ void finalize_train(BatchNormParams p, std::int64_t rows, std::int64_t rows_per_split, int splits,
                               const float* part_mean, const float* part_m2, const float* gamma, const float* beta,
                               float* save_mean, float* save_invstd, float* scale, float* shift, float* running_mean,
                               float* running_var) {
  const int ch = blockIdx.x * blockDim.x + threadIdx.x;
  if (ch >= p.c) return;
  double n = 0, mean = 0, m2 = 0;
  for (int s = 0; s < splits; ++s) {
    const double nb = double(imin(rows_per_split, rows - std::int64_t(s) * rows_per_split));
    const double d = double(part_mean[std::int64_t(s) * p.c + ch]) - mean, total = n + nb;
    mean += d * nb / total;
    m2 += double(part_m2[std::int64_t(s) * p.c + ch]) + d * d * n * nb / total;
    n = total;
  }
  const double var = m2 / n;  // biased: used to normalise
  const double invstd = 1.0 / sqrt(var + p.eps);
  save_mean[ch] = static_cast<float>(mean);
  save_invstd[ch] = static_cast<float>(invstd);
  const double mom = p.momentum;
  running_mean[ch] = static_cast<float>((1.0 - mom) * running_mean[ch] + mom * mean);
  running_var[ch] = static_cast<float>((1.0 - mom) * running_var[ch] + mom * var * n / (n - 1.0));
  scale[ch] = static_cast<float>(gamma[ch] * invstd);
  shift[ch] = beta[ch];
}

// Eval's affine: scale = γ / sqrt(running_var + eps) (the CPU's batchnorm_forward_eval).
__global__ void finalize_eval(int c, float eps, const float* gamma, const float* running_var, float* scale) {
  const int ch = blockIdx.x * blockDim.x + threadIdx.x;
  if (ch < c) scale[ch] = static_cast<float>(gamma[ch] / sqrt(double(running_var[ch]) + eps));
}

unsigned channel_blocks(int c) { return unsigned((c + kBlock - 1) / kBlock); }

}  // namespace

std::size_t batchnorm_workspace_bytes(const BatchNormSpec& s) {
  // Forward: mean and m2 partials; backward: two sums' partials and three constants a channel;
  // eval: one scale a channel.
  return (2 * std::size_t(bn::split_of(s).splits) + 3) * std::size_t(s.p.c) * sizeof(float);
}

void batchnorm_forward_train(const BatchNormSpec& s, const void* x, const float* gamma, const float* beta, void* y,
                             float* save_mean, float* save_invstd, float* scale, float* shift, float* running_mean,
                             float* running_var, bool relu, Workspace& ws, cudaStream_t stream) {
  bn::validate(s, "batchnorm_forward_train");
  SB_CHECK(x && gamma && beta && y && save_mean && save_invstd && scale && shift && running_mean && running_var,
           "batchnorm_forward_train (own kernels): null operand");
  // As the CPU reference (and PyTorch): the unbiased variance of one value is undefined.
  SB_CHECK(double(s.p.n) * s.p.hw > 1, "batchnorm: training needs more than one value per channel (n={}, hw={})",
           s.p.n, s.p.hw);
  const RowSplit sp = bn::split_of(s);
  const std::int64_t rows = bn::rows_of(s);
  float* part_mean = static_cast<float*>(ws.get(batchnorm_workspace_bytes(s)));
  float* part_m2 = part_mean + std::size_t(sp.splits) * s.p.c;
  dispatch_dtype(s.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xt = static_cast<const T*>(x);
    if (s.layout == Layout::NCHW)
      stats_nchw<T><<<dim3(sp.splits, s.p.c), kBlock, 0, stream>>>(s.p.c, s.p.hw, rows, sp.rows_per_split, xt,
                                                                   part_mean, part_m2);
    else
      stats_nhwc<T><<<dim3((s.p.c + 31) / 32, sp.splits), dim3(32, kNhwcRows), 0, stream>>>(
          s.p.c, rows, sp.rows_per_split, xt, part_mean, part_m2);
  });
  CUDA_CHECK(cudaGetLastError());
  finalize_train<<<channel_blocks(s.p.c), kBlock, 0, stream>>>(s.p, rows, sp.rows_per_split, sp.splits, part_mean,
                                                               part_m2, gamma, beta, save_mean, save_invstd, scale,
                                                               shift, running_mean, running_var);
  CUDA_CHECK(cudaGetLastError());
  dispatch_dtype(s.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    bn::launch_apply<T>(s, static_cast<const T*>(x), save_mean, scale, shift, relu, static_cast<T*>(y), stream);
  });
  CUDA_CHECK(cudaGetLastError());
}

void batchnorm_forward_eval(const BatchNormSpec& s, const void* x, const float* gamma, const float* beta,
                            const float* running_mean, const float* running_var, void* y, bool relu, Workspace& ws,
                            cudaStream_t stream) {
  bn::validate(s, "batchnorm_forward_eval");
  SB_CHECK(x && gamma && beta && running_mean && running_var && y, "batchnorm_forward_eval (own kernels): null operand");
  float* scale = static_cast<float*>(ws.get(batchnorm_workspace_bytes(s)));
  finalize_eval<<<channel_blocks(s.p.c), kBlock, 0, stream>>>(s.p.c, s.p.eps, gamma, running_var, scale);
  CUDA_CHECK(cudaGetLastError());
  dispatch_dtype(s.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    bn::launch_apply<T>(s, static_cast<const T*>(x), running_mean, scale, beta, relu, static_cast<T*>(y), stream);
  });
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace scalebench::cuda
