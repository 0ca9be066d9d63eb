// layerwise.h — the per-tensor halves of LARS and LAMB on the GPU, with the CPU kernels' semantics
// (kernels/cpu/lars.h, lamb.h): the norms are taken on the device (deterministic double sums,
// reduce.h), the trust ratio on the host from them (as the CPU does), then one update kernel. Each
// float operation is a rounded intrinsic in the CPU loop's order, so nvcc fuses nothing.
// Not here: choosing which tensors adapt (the caller's adapt flag), the trust ratio itself.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace scalebench::cuda {

// LARS update with scale = lr·trust: v = momentum·v + scale·(g + wd·w); w -= v. In float when
// scale fits a float (as the CPU), else the product in double.
void lars_update(std::int64_t count, float* w, const float* g, float* v, double scale, float momentum,
                 float weight_decay, cudaStream_t stream);

// LAMB, step t: m = β1·m + (1-β1)·g; v = β2·v + (1-β2)·g·g.
void lamb_moments(std::int64_t count, const float* g, float* m, float* v, float beta1, float beta2,
                  cudaStream_t stream);
// out[0] = Σ w², out[1] = Σ r² with r = (m·inv_bc1)/(sqrt(v·inv_bc2) + eps) + wd·w (device doubles;
// scratch: 2·kReducePartials doubles).
void lamb_norms(std::int64_t count, const float* w, const float* m, const float* v, float inv_bc1, float inv_bc2,
                float eps, float weight_decay, double* out, double* scratch, cudaStream_t stream);
// w -= scale·r (in float when scale fits a float, else in double).
void lamb_update(std::int64_t count, float* w, const float* m, const float* v, float inv_bc1, float inv_bc2, float eps,
                 float weight_decay, double scale, cudaStream_t stream);

}  // namespace scalebench::cuda
