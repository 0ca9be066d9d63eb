// bias_grad.cu — deterministic per-channel sums (see bias_grad.h). The rows (n·hw positions) are
// cut into `splits` ranges of equal length; pass 1 writes one fp32 partial per (range, channel),
// pass 2 adds a channel's partials in range order. NCHW: a block per (range, channel) walks the
// contiguous hw runs of that channel and ends in a block tree sum. NHWC: a 32×8 block covers 32
// adjacent channels (coalesced rows), each thread summing every 8th row, then a fixed sum over the
// 8. With a single range pass 1 writes db directly and there is no workspace and no pass 2.
#include "kernels/cuda/device_types.cuh"

#include "kernels/cuda/bias_grad.h"
#include "kernels/common/row_split.h"
#include "kernels/cuda/check.h"

namespace scalebench::cuda {
namespace {

using namespace detail;

constexpr std::int64_t kMinRowsPerSplit = 4096;
constexpr int kMaxSplits = 128;
constexpr int kNhwcRowsPerBlock = 8;  // threadIdx.y extent of the NHWC kernel

RowSplit split_of(const ChannelParams& p) { return split_rows(std::int64_t(p.n) * p.hw, kMinRowsPerSplit, kMaxSplits); }

template <class T>
__global__ void partial_nchw(int c, std::int64_t hw, std::int64_t rows, std::int64_t rows_per_split, const T* dy,
                             float* partial) {
  const int ch = blockIdx.y, split = blockIdx.x;
  const std::int64_t lo = std::int64_t(split) * rows_per_split;
  const std::int64_t hi = imin(lo + rows_per_split, rows);
  float acc = 0.0f;
  // Row r = img·hw + s lives at dy[(img·c + ch)·hw + s]: walk the range one image's run at a time.
  for (std::int64_t r = lo; r < hi;) {
    const std::int64_t img = r / hw, s0 = r - img * hw;
    const std::int64_t len = imin(hi - r, hw - s0);
    const T* run = dy + (img * c + ch) * hw + s0;
    for (std::int64_t k = threadIdx.x; k < len; k += blockDim.x) acc += to_f32(run[k]);
    r += len;
  }
  acc = block_sum(acc);
  if (threadIdx.x == 0) partial[std::int64_t(split) * c + ch] = acc;
}

template <class T>
__global__ void partial_nhwc(int c, std::int64_t rows, std::int64_t rows_per_split, const T* dy, float* partial) {
  __shared__ float sums[kNhwcRowsPerBlock][33];
  const int ch = blockIdx.x * 32 + threadIdx.x, split = blockIdx.y;
  const std::int64_t lo = std::int64_t(split) * rows_per_split;
  const std::int64_t hi = imin(lo + rows_per_split, rows);
  float acc = 0.0f;
  if (ch < c)
    for (std::int64_t r = lo + threadIdx.y; r < hi; r += kNhwcRowsPerBlock) acc += to_f32(dy[r * c + ch]);
  sums[threadIdx.y][threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.y == 0 && ch < c) {
    float total = 0.0f;
    for (int k = 0; k < kNhwcRowsPerBlock; ++k) total += sums[k][threadIdx.x];
    partial[std::int64_t(split) * c + ch] = total;
  }
}

__global__ void sum_partials(int c, int splits, const float* partial, float* db) {
  const int ch = blockIdx.x * blockDim.x + threadIdx.x;
  if (ch >= c) return;
  float total = 0.0f;
  for (int s = 0; s < splits; ++s) total += partial[std::int64_t(s) * c + ch];
  db[ch] = total;
}

}  // namespace

std::size_t bias_grad_workspace_bytes(const ChannelParams& p) {
  const RowSplit s = split_of(p);
  return s.splits == 1 ? 0 : std::size_t(s.splits) * p.c * sizeof(float);
}

void bias_grad(const ChannelParams& p, const void* dy, float* db, Workspace& ws, cudaStream_t stream) {
  SB_CHECK(p.n > 0 && p.c > 0 && p.hw > 0, "bias_grad: bad sizes n={} c={} hw={}", p.n, p.c, p.hw);
  const RowSplit s = split_of(p);
  const std::int64_t rows = std::int64_t(p.n) * p.hw;
  float* partial = s.splits == 1 ? db : static_cast<float*>(ws.get(bias_grad_workspace_bytes(p)));
  dispatch_dtype(p.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* d = static_cast<const T*>(dy);
    if (p.layout == Layout::NCHW) {
      SB_CHECK(p.c <= 65535, "bias_grad: NCHW with {} channels exceeds the grid's y limit", p.c);
      partial_nchw<T><<<dim3(s.splits, p.c), kBlock, 0, stream>>>(p.c, p.hw, rows, s.rows_per_split, d, partial);
    } else {
      const dim3 grid((p.c + 31) / 32, s.splits);
      partial_nhwc<T><<<grid, dim3(32, kNhwcRowsPerBlock), 0, stream>>>(p.c, rows, s.rows_per_split, d, partial);
    }
  });
  CUDA_CHECK(cudaGetLastError());
  if (s.splits > 1) {
    sum_partials<<<(p.c + kBlock - 1) / kBlock, kBlock, 0, stream>>>(p.c, s.splits, partial, db);
    CUDA_CHECK(cudaGetLastError());
  }
}

}  // namespace scalebench::cuda
