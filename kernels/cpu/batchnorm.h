// batchnorm.h — batch normalisation over (N, H, W) per channel, NCHW float32 (H = W = 1 covers
// the [n, c] case of fully connected layers). Training mode normalises with the batch statistics
// (biased variance) and updates running statistics with the unbiased variance, as PyTorch does;
// eval mode uses the running statistics. Statistics accumulate in double.
#pragma once

#include "kernels/common/batchnorm_params.h"

namespace scalebench::cpu {

// Saves per-channel mean and inverse std (save_mean, save_invstd [c]) for the backward;
// updates running_mean/running_var [c] in place.
void batchnorm_forward_train(const BatchNormParams& p, const float* x, const float* gamma, const float* beta,
                             float* y, float* save_mean, float* save_invstd, float* running_mean,
                             float* running_var);
void batchnorm_forward_eval(const BatchNormParams& p, const float* x, const float* gamma, const float* beta,
                            const float* running_mean, const float* running_var, float* y);
// dx overwritten; dgamma, dbeta [c] overwritten.
void batchnorm_backward(const BatchNormParams& p, const float* x, const float* dy, const float* gamma,
                        const float* save_mean, const float* save_invstd, float* dx, float* dgamma,
                        float* dbeta);

}  // namespace scalebench::cpu
