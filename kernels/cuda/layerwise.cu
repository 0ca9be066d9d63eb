// layerwise.cu — LARS and LAMB update kernels and LAMB's norms (see layerwise.h).
#include "kernels/cuda/device_types.cuh"

#include <limits>

#include "kernels/cuda/check.h"
#include "kernels/cuda/layerwise.h"
#include "kernels/cuda/reduce.h"

namespace scalebench::cuda {
namespace {

using namespace detail;

constexpr double kFloatMax = double(std::numeric_limits<float>::max());

__global__ void lars_float(std::int64_t count, float* w, const float* g, float* v, float local_lr, float momentum,
                           float wd) {
  for (std::int64_t i = global_thread(); i < count; i += grid_threads()) {
    const float wi = w[i];
    const float vi = __fadd_rn(__fmul_rn(momentum, v[i]), __fmul_rn(local_lr, __fadd_rn(g[i], __fmul_rn(wd, wi))));
    v[i] = vi;
    w[i] = __fsub_rn(wi, vi);
  }
}

__global__ void lars_double(std::int64_t count, float* w, const float* g, float* v, double scale, float momentum,
                            float wd) {
  for (std::int64_t i = global_thread(); i < count; i += grid_threads()) {
    const float wi = w[i];
    const float vi = float(__dadd_rn(__dmul_rn(double(momentum), double(v[i])),
                                     __dmul_rn(scale, double(__fadd_rn(g[i], __fmul_rn(wd, wi))))));
    v[i] = vi;
    w[i] = __fsub_rn(wi, vi);
  }
}

__global__ void lamb_moments_kernel(std::int64_t count, const float* g, float* m, float* v, float beta1, float beta2) {
  const float omb1 = __fsub_rn(1.0f, beta1), omb2 = __fsub_rn(1.0f, beta2);
  for (std::int64_t i = global_thread(); i < count; i += grid_threads()) {
    const float gi = g[i];
    m[i] = __fadd_rn(__fmul_rn(beta1, m[i]), __fmul_rn(omb1, gi));
    v[i] = __fadd_rn(__fmul_rn(beta2, v[i]), __fmul_rn(__fmul_rn(omb2, gi), gi));
  }
}

__device__ __forceinline__ float lamb_direction(float m, float v, float w, float inv_bc1, float inv_bc2, float eps,
                                                float wd) {
  return __fadd_rn(__fdiv_rn(__fmul_rn(m, inv_bc1), __fadd_rn(__fsqrt_rn(__fmul_rn(v, inv_bc2)), eps)),
                   __fmul_rn(wd, w));
}

__global__ void lamb_partials(std::int64_t count, const float* w, const float* m, const float* v, float inv_bc1,
                              float inv_bc2, float eps, float wd, double* partials) {
  double ww = 0, rr = 0;
  for (std::int64_t i = global_thread(); i < count; i += grid_threads()) {
    const double r = lamb_direction(m[i], v[i], w[i], inv_bc1, inv_bc2, eps, wd);
    ww += double(w[i]) * double(w[i]);
    rr += r * r;
  }
  ww = block_sum(ww);
  rr = block_sum(rr);
  if (threadIdx.x == 0) partials[blockIdx.x] = ww, partials[gridDim.x + blockIdx.x] = rr;
}

__global__ void sum_two(const double* partials, int n, double* out) {
  double a = 0, b = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x) a += partials[i], b += partials[n + i];
  a = block_sum(a);
  b = block_sum(b);
  if (threadIdx.x == 0) out[0] = a, out[1] = b;
}

__global__ void lamb_update_float(std::int64_t count, float* w, const float* m, const float* v, float inv_bc1,
                                  float inv_bc2, float eps, float wd, float step) {
  for (std::int64_t i = global_thread(); i < count; i += grid_threads())
    w[i] = __fsub_rn(w[i], __fmul_rn(step, lamb_direction(m[i], v[i], w[i], inv_bc1, inv_bc2, eps, wd)));
}

__global__ void lamb_update_double(std::int64_t count, float* w, const float* m, const float* v, float inv_bc1,
                                   float inv_bc2, float eps, float wd, double scale) {
  for (std::int64_t i = global_thread(); i < count; i += grid_threads())
    w[i] = float(__dsub_rn(double(w[i]),
                           __dmul_rn(scale, double(lamb_direction(m[i], v[i], w[i], inv_bc1, inv_bc2, eps, wd)))));
}

}  // namespace

void lars_update(std::int64_t count, float* w, const float* g, float* v, double scale, float momentum,
                 float weight_decay, cudaStream_t stream) {
  if (count <= 0) return;
  if (scale <= kFloatMax)
    lars_float<<<grid_for(count), kBlock, 0, stream>>>(count, w, g, v, float(scale), momentum, weight_decay);
  else
    lars_double<<<grid_for(count), kBlock, 0, stream>>>(count, w, g, v, scale, momentum, weight_decay);
  CUDA_CHECK(cudaGetLastError());
}

void lamb_moments(std::int64_t count, const float* g, float* m, float* v, float beta1, float beta2,
                  cudaStream_t stream) {
  if (count <= 0) return;
  lamb_moments_kernel<<<grid_for(count), kBlock, 0, stream>>>(count, g, m, v, beta1, beta2);
  CUDA_CHECK(cudaGetLastError());
}

void lamb_norms(std::int64_t count, const float* w, const float* m, const float* v, float inv_bc1, float inv_bc2,
                float eps, float weight_decay, double* out, double* scratch, cudaStream_t stream) {
  lamb_partials<<<kReducePartials, kBlock, 0, stream>>>(count, w, m, v, inv_bc1, inv_bc2, eps, weight_decay, scratch);
  CUDA_CHECK(cudaGetLastError());
  sum_two<<<1, kBlock, 0, stream>>>(scratch, kReducePartials, out);
  CUDA_CHECK(cudaGetLastError());
}

void lamb_update(std::int64_t count, float* w, const float* m, const float* v, float inv_bc1, float inv_bc2, float eps,
                 float weight_decay, double scale, cudaStream_t stream) {
  if (count <= 0) return;
  if (scale <= kFloatMax)
    lamb_update_float<<<grid_for(count), kBlock, 0, stream>>>(count, w, m, v, inv_bc1, inv_bc2, eps, weight_decay,
                                                              float(scale));
  else
    lamb_update_double<<<grid_for(count), kBlock, 0, stream>>>(count, w, m, v, inv_bc1, inv_bc2, eps, weight_decay,
                                                               scale);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace scalebench::cuda
