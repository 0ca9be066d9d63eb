// optimizers.h — SGD with momentum and AdamW over one flat fp32 parameter arena on the GPU, each step
// ONE kernel over all `count` parameters. Same semantics and the same fp32 operation order as
// kernels/cpu/optimizers.h (PyTorch SGD with dampening 0, no Nesterov, weight decay as L2; PyTorch
// AdamW without amsgrad, bias corrections formed in double on the host). Every multiply, add, divide
// and square root is an explicitly rounded intrinsic, so nvcc never fuses them into FMAs and the
// results match the CPU (built without FMA) bit for bit.
// Not here: bf16/f16 parameters or moments, gradient clipping or scaling, multi-tensor lists.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace scalebench::cuda {

// g' = g + wd·w; m = momentum·m + g' (m = g' on the first step); w -= lr·m.
void sgd_momentum_step(std::int64_t count, float* w, const float* g, float* m, float lr, float momentum,
                       float weight_decay, bool first_step, cudaStream_t stream);

// w *= 1 - lr·wd; m = β1·m + (1-β1)·g; v = β2·v + (1-β2)·g²; w -= lr/bc1 · m / (sqrt(v)/sqrt(bc2) + eps),
// bc_k = 1 - β_k^t with t the 1-based step.
void adamw_step(std::int64_t count, float* w, const float* g, float* m, float* v, float lr, float beta1, float beta2,
                float eps, float weight_decay, std::int64_t t, cudaStream_t stream);

}  // namespace scalebench::cuda
