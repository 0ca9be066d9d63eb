// batchnorm.h — our own spatial batch norm (train --gpu-kernels own): training forward with the
// batch statistics and an optional fused ReLU, eval forward, and the backward with that ReLU's mask
// fused, with kernels/cpu/batchnorm.h's semantics (PyTorch's), which is the specification:
//  - train: normalise with the biased batch variance; save mean and inverse std; running =
//    (1 − momentum)·running + momentum·batch, the variance moving toward the unbiased one;
//    y = (x − mean)·scale + shift with scale = γ·invstd and shift = β per channel (saved, as the CPU's
//    FusedRelu saves them), max(y, 0) with the ReLU;
//  - backward: dgamma, dbeta (overwritten) and dx from the saved statistics; with the ReLU the
//    gradient is masked where the forward's y was not positive, recomputed from x and the saved
//    affine (the CPU's rule), so the output is never read back.
// x, y, dy, dx are `dtype` (f32, bf16, f16: storage only, math in fp32) in `layout` (NCHW [n, c, hw],
// NHWC [n, hw, c]); gamma, beta, statistics, the saved affine and gradients are f32 [c] on the device.
// Memory passes: the forward reads x twice and writes y once (statistics by per-thread Welford in
// fp32, partials combined in double by Chan's formula); the backward reads x and dy twice and
// writes dx once. Deterministic: the reduction tree depends only on the shape (row_split.h), no
// atomics, so reruns give the same bits. Nothing synchronises with the host (graph-capturable).
// Not here: synchronised batch norm (sync_batchnorm.h), per-activation mode, other activations.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "kernels/common/batchnorm_params.h"
#include "kernels/common/tensor.h"
#include "kernels/cuda/workspace.h"

namespace scalebench::cuda {

struct BatchNormSpec {
  BatchNormParams p;  // x [n, c, hw], eps, momentum
  DType dtype = DType::f32;
  Layout layout = Layout::NCHW;  // NHWC stores x as [n, hw, c]
};

// Scratch the calls below take from a Workspace (the largest of the three).
std::size_t batchnorm_workspace_bytes(const BatchNormSpec& s);

// x, y [n, c, hw]; gamma, beta [c]; save_mean, save_invstd, scale, shift [c] written; running_mean,
// running_var [c] updated. relu: max(y, 0) written. Needs n·hw > 1 (the CPU's rule).
void batchnorm_forward_train(const BatchNormSpec& s, const void* x, const float* gamma, const float* beta, void* y,
                             float* save_mean, float* save_invstd, float* scale, float* shift, float* running_mean,
                             float* running_var, bool relu, Workspace& ws, cudaStream_t stream);
// x, y [n, c, hw]; gamma, beta, running_mean, running_var [c]. relu: max(y, 0) written.
void batchnorm_forward_eval(const BatchNormSpec& s, const void* x, const float* gamma, const float* beta,
                            const float* running_mean, const float* running_var, void* y, bool relu, Workspace& ws,
                            cudaStream_t stream);
// x, dy, dx [n, c, hw]; gamma, save_mean, save_invstd [c]; relu_scale, relu_shift [c]: the forward's
// saved affine when it fused the ReLU (dy is then the gradient of max(y, 0)), both null otherwise;
// dgamma, dbeta [c] overwritten.
void batchnorm_backward(const BatchNormSpec& s, const void* x, const void* dy, const float* gamma,
                        const float* save_mean, const float* save_invstd, const float* relu_scale,
                        const float* relu_shift, void* dx, float* dgamma, float* dbeta, Workspace& ws,
                        cudaStream_t stream);

}  // namespace scalebench::cuda
