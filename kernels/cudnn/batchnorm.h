// batchnorm.h — spatial batch normalisation through cuDNN (CUDNN_BATCHNORM_SPATIAL: statistics
// per channel over n and the plane), with kernels/cpu/batchnorm.h's semantics and argument order:
//  - train: normalise with the biased batch variance; save mean and inverse std (1/sqrt(var + eps),
//    what cuDNN calls "saved inverse variance"); running = (1 − momentum)·running + momentum·batch,
//    cuDNN's exponentialAverageFactor being exactly `momentum`, and the running variance moving
//    toward the unbiased batch variance (·count/(count − 1)), as PyTorch and the CPU reference do —
//    cuDNN applies that correction itself (PyTorch hands its running_var to cuDNN unchanged);
//  - eval: normalise with the running statistics;
//  - backward: dx, dgamma, dbeta from the saved statistics (same eps as the forward).
// x/y/dx/dy are `dtype` in `layout`; gamma, beta, statistics and their gradients are always f32 [c].
// NHWC training runs CUDNN_BATCHNORM_SPATIAL_PERSISTENT (fast) unless deterministic.
// Not here: per-activation mode, fused activation/add, sync BN.
#pragma once

#include "kernels/common/batchnorm_params.h"
#include "kernels/common/tensor.h"
#include "kernels/cudnn/handle.h"

namespace scalebench::cudnn {

struct BatchNormSpec {
  BatchNormParams p;  // x [n, c, hw] (hw = h·w: the plane), eps, momentum
  DType dtype = DType::f32;
  Layout layout = Layout::NCHW;  // NHWC stores x as [n, hw, c]
  bool deterministic = false;  // NHWC training uses cuDNN's persistent kernels unless set
};

// x, y [n, c, hw]; gamma, beta [c]; save_mean, save_invstd [c] written; running_mean/var [c] updated.
void batchnorm_forward_train(Handle& handle, const BatchNormSpec& s, const void* x, const float* gamma,
                             const float* beta, void* y, float* save_mean, float* save_invstd, float* running_mean,
                             float* running_var);
// x, y [n, c, hw]; gamma, beta, running_mean, running_var [c].
void batchnorm_forward_eval(Handle& handle, const BatchNormSpec& s, const void* x, const float* gamma,
                            const float* beta, const float* running_mean, const float* running_var, void* y);
// x, dy, dx [n, c, hw]; gamma, save_mean, save_invstd [c]; dgamma, dbeta [c] overwritten.
void batchnorm_backward(Handle& handle, const BatchNormSpec& s, const void* x, const void* dy, const float* gamma,
                        const float* save_mean, const float* save_invstd, void* dx, float* dgamma, float* dbeta);

}  // namespace scalebench::cudnn
