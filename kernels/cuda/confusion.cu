// confusion.cu — confusion counts (see confusion.h). Each block keeps a private 32-bit histogram in
// shared memory (classes² bins; a block sees far fewer than 2^32 pixels) and adds it to the global
// int64 counts at the end; with more classes than fit in shared memory the threads add straight to
// global memory. The argmax is argmax.cuh's, the one argmax_classes uses.
// No label validation beyond skipping and counting: softmax_xent is where bad labels are errors.
#include "kernels/cuda/device_types.cuh"

#include "kernels/cuda/argmax.cuh"
#include "kernels/cuda/confusion.h"
#include "kernels/cuda/check.h"

namespace scalebench::cuda {
namespace {

using namespace detail;

constexpr int kMaxSharedBins = 64 * 64;  // 16 KiB of 32-bit bins

__device__ __forceinline__ void add_global(std::int64_t* p, unsigned long long v) {
  atomicAdd(reinterpret_cast<unsigned long long*>(p), v);  // two's complement: same bits as int64 +=
}

template <class T, bool kShared>
__global__ void confusion_kernel(std::int64_t pixels, std::int64_t hw, int classes, const T* logits,
                                 const std::int32_t* labels, std::int64_t* counts, std::int64_t* invalid) {
  extern __shared__ unsigned int bins[];  // classes² when kShared
  const int nbins = classes * classes;
  if (kShared) {
    for (int b = threadIdx.x; b < nbins; b += blockDim.x) bins[b] = 0;
    __syncthreads();
  }
  unsigned int bad = 0;
  for (std::int64_t q = global_thread(); q < pixels; q += grid_threads()) {
    const std::int32_t y = labels[q];
    if (y < 0 || y >= classes) {
      ++bad;
      continue;
    }
    const std::int64_t img = q / hw, s = q - img * hw;
    const int pred = argmax_at(logits + img * classes * hw + s, hw, classes);
    if (kShared)
      atomicAdd(&bins[y * classes + pred], 1u);
    else
      add_global(&counts[std::int64_t(y) * classes + pred], 1ull);
  }
  if (invalid && bad) add_global(invalid, bad);
  if (kShared) {
    __syncthreads();
    for (int b = threadIdx.x; b < nbins; b += blockDim.x)
      if (bins[b]) add_global(&counts[b], bins[b]);
  }
}

}  // namespace

void confusion_counts(const SoftmaxXentParams& p, DType dtype, const void* logits, const std::int32_t* labels,
                      std::int64_t* counts, std::int64_t* invalid, cudaStream_t stream) {
  SB_CHECK(p.n > 0 && p.classes > 0 && p.hw > 0, "confusion_counts: bad sizes n={} classes={} hw={}", p.n, p.classes,
           p.hw);
  const std::int64_t pixels = std::int64_t(p.n) * p.hw;
  const bool shared = std::int64_t(p.classes) * p.classes <= kMaxSharedBins;
  // Blocks: enough to fill the GPU; at most 4096 so the shared histograms are worth their flush.
  const unsigned blocks = std::min(grid_for(pixels), 4096u);
  dispatch_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* x = static_cast<const T*>(logits);
    if (shared)
      confusion_kernel<T, true><<<blocks, kBlock, sizeof(unsigned) * p.classes * p.classes, stream>>>(
          pixels, p.hw, p.classes, x, labels, counts, invalid);
    else
      confusion_kernel<T, false><<<blocks, kBlock, 0, stream>>>(pixels, p.hw, p.classes, x, labels, counts, invalid);
  });
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace scalebench::cuda
