// reduce.cu — fill, axpy, deterministic dot products and the non-finite scan (see reduce.h).
#include "kernels/cuda/device_types.cuh"

#include "kernels/cuda/check.h"
#include "kernels/cuda/reduce.h"

namespace scalebench::cuda {
namespace {

using namespace detail;

__global__ void fill_kernel(std::int64_t count, float* x, float v) {
  for (std::int64_t i = global_thread(); i < count; i += grid_threads()) x[i] = v;
}

__global__ void axpy_kernel(std::int64_t count, float a, const float* x, float* y) {
  for (std::int64_t i = global_thread(); i < count; i += grid_threads()) y[i] = __fadd_rn(y[i], __fmul_rn(a, x[i]));
}

// One partial per block over a fixed stride pattern (gridDim.x == kReducePartials).
__global__ void dot_partials(std::int64_t count, const float* a, const float* b, double* partials) {
  double s = 0;
  for (std::int64_t i = global_thread(); i < count; i += grid_threads()) s += double(a[i]) * double(b[i]);
  s = block_sum(s);
  if (threadIdx.x == 0) partials[blockIdx.x] = s;
}

// One block: the partials in index order (a fixed tree over a fixed count).
__global__ void sum_partials(const double* partials, int n, double* out) {
  double s = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x) s += partials[i];
  s = block_sum(s);
  if (threadIdx.x == 0) *out = s;
}

__global__ void nonfinite_kernel(std::int64_t count, const float* x, unsigned long long* index) {
  for (std::int64_t i = global_thread(); i < count; i += grid_threads())
    if (!isfinite(x[i])) {
      atomicMin(index, static_cast<unsigned long long>(i));
      return;  // later elements of this thread's stride are larger indices
    }
}

}  // namespace

void fill(std::int64_t count, float* x, float v, cudaStream_t stream) {
  if (count <= 0) return;
  fill_kernel<<<grid_for(count), kBlock, 0, stream>>>(count, x, v);
  CUDA_CHECK(cudaGetLastError());
}

void axpy(std::int64_t count, float a, const float* x, float* y, cudaStream_t stream) {
  if (count <= 0) return;
  axpy_kernel<<<grid_for(count), kBlock, 0, stream>>>(count, a, x, y);
  CUDA_CHECK(cudaGetLastError());
}

void dot(std::int64_t count, const float* a, const float* b, double* out, double* scratch, cudaStream_t stream) {
  SB_CHECK(count >= 0, "dot: count {} < 0", count);
  dot_partials<<<kReducePartials, kBlock, 0, stream>>>(count, a, b, scratch);
  CUDA_CHECK(cudaGetLastError());
  sum_partials<<<1, kBlock, 0, stream>>>(scratch, kReducePartials, out);
  CUDA_CHECK(cudaGetLastError());
}

void first_nonfinite(std::int64_t count, const float* x, unsigned long long* index, cudaStream_t stream) {
  if (count <= 0) return;
  nonfinite_kernel<<<grid_for(count), kBlock, 0, stream>>>(count, x, index);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace scalebench::cuda
