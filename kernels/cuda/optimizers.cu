// optimizers.cu — fused SGD-momentum and AdamW steps (see optimizers.h). Grid-stride loops, one
// element per iteration; each line mirrors the CPU loop body in kernels/cpu/optimizers.cpp with
// __f*_rn intrinsics spelling out its rounding steps in C++'s left-to-right evaluation order.
// No vectorised loads or multi-tensor lists: the arena is one contiguous buffer by design.
#include "kernels/cuda/device_types.cuh"

#include <cmath>

#include "kernels/cuda/check.h"
#include "kernels/cuda/optimizers.h"

namespace scalebench::cuda {
namespace {

using namespace detail;

__global__ void sgd_kernel(std::int64_t count, float* w, const float* g, float* m, float lr, float momentum,
                           float weight_decay, bool first_step) {
  for (std::int64_t i = global_thread(); i < count; i += grid_threads()) {
    const float wi = w[i];
    const float gi = __fadd_rn(g[i], __fmul_rn(weight_decay, wi));          // g + wd·w
    const float mi = first_step ? gi : __fadd_rn(__fmul_rn(momentum, m[i]), gi);  // momentum·m + g'
    m[i] = mi;
    w[i] = __fsub_rn(wi, __fmul_rn(lr, mi));  // w -= lr·m
  }
}

__global__ void adamw_kernel(std::int64_t count, float* w, const float* g, float* m, float* v, float beta1,
                             float beta2, float eps, float decay, float step_size, float inv_sqrt_bc2) {
  const float one_minus_b1 = __fsub_rn(1.0f, beta1), one_minus_b2 = __fsub_rn(1.0f, beta2);
  for (std::int64_t i = global_thread(); i < count; i += grid_threads()) {
    const float gi = g[i];
    const float wi = __fmul_rn(w[i], decay);                                            // w *= decay
    const float mi = __fadd_rn(__fmul_rn(beta1, m[i]), __fmul_rn(one_minus_b1, gi));     // β1·m + (1-β1)·g
    const float vi = __fadd_rn(__fmul_rn(beta2, v[i]), __fmul_rn(__fmul_rn(one_minus_b2, gi), gi));  // ((1-β2)·g)·g
    const float denom = __fadd_rn(__fmul_rn(__fsqrt_rn(vi), inv_sqrt_bc2), eps);       // sqrt(v)·(1/sqrt(bc2)) + eps
    m[i] = mi;
    v[i] = vi;
    w[i] = __fsub_rn(wi, __fdiv_rn(__fmul_rn(step_size, mi), denom));                    // w -= (step·m) / denom
  }
}

}  // namespace

void sgd_momentum_step(std::int64_t count, float* w, const float* g, float* m, float lr, float momentum,
                       float weight_decay, bool first_step, cudaStream_t stream) {
  SB_CHECK(count >= 0, "sgd_momentum_step: count {} < 0", count);
  if (count == 0) return;
  sgd_kernel<<<grid_for(count), kBlock, 0, stream>>>(count, w, g, m, lr, momentum, weight_decay, first_step);
  CUDA_CHECK(cudaGetLastError());
}

void adamw_step(std::int64_t count, float* w, const float* g, float* m, float* v, float lr, float beta1, float beta2,
                float eps, float weight_decay, std::int64_t t, cudaStream_t stream) {
  SB_CHECK(count >= 0, "adamw_step: count {} < 0", count);
  SB_CHECK(t >= 1, "adamw_step: step t={} must be 1-based", t);
  if (count == 0) return;
  // Per-step scalars exactly as the CPU forms them (double, then one rounding to float).
  const float decay = static_cast<float>(1.0 - double(lr) * weight_decay);
  const double bc1 = 1.0 - std::pow(double(beta1), double(t));
  const double bc2 = 1.0 - std::pow(double(beta2), double(t));
  const float step_size = static_cast<float>(lr / bc1);
  const float inv_sqrt_bc2 = static_cast<float>(1.0 / std::sqrt(bc2));
  adamw_kernel<<<grid_for(count), kBlock, 0, stream>>>(count, w, g, m, v, beta1, beta2, eps, decay, step_size,
                                                       inv_sqrt_bc2);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace scalebench::cuda
