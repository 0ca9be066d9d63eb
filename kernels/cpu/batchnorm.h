// batchnorm.h — batch normalisation over (N, H, W) per channel, NCHW float32 (H = W = 1 covers
// the [n, c] case of fully connected layers). Training mode normalises with the batch statistics
// (biased variance) and updates running statistics with the unbiased variance, as PyTorch does;
// eval mode uses the running statistics. Statistics accumulate in double.
#pragma once

#include <cstddef>
#include <functional>

#include "kernels/common/batchnorm_params.h"

namespace scalebench::cpu {

// Synchronised batch norm: replaces v[0..n) by its sum over the data-parallel replicas (the same
// result on every replica). Empty: statistics of this batch only.
using StatSum = std::function<void(double* v, std::size_t n)>;

// A ReLU fused after the batch norm (models/batchnorm_cpu.cpp fuses the ReLU that alone reads it):
// the training forward writes max(y, 0) and saves each channel's affine (y = (x − mean)·scale +
// shift: scale, shift [c]); the backward takes the gradient of max(y, 0), masks it where the forward
// wrote 0 (recomputing y's sign from x and the saved affine, not reading the output) and goes on as
// without. Every element gets the bits of the separate ReLU (kernels/cpu/relu.h) followed or preceded
// by the batch norm. Null pointers: no ReLU.
struct FusedRelu {
  float* scale = nullptr;
  float* shift = nullptr;
};
struct FusedReluSaved {
  const float* scale = nullptr;
  const float* shift = nullptr;
};

// Saves per-channel mean and inverse std (save_mean, save_invstd [c]) for the backward;
// updates running_mean/running_var [c] in place. With sum_over_replicas the mean and variance are
// the global batch's (per-channel sums and centred squares are added over the replicas).
void batchnorm_forward_train(const BatchNormParams& p, const float* x, const float* gamma, const float* beta,
                             float* y, float* save_mean, float* save_invstd, float* running_mean,
                             float* running_var, const StatSum& sum_over_replicas = {},
                             const FusedRelu& relu = {});
// relu: max(y, 0) written instead of y.
void batchnorm_forward_eval(const BatchNormParams& p, const float* x, const float* gamma, const float* beta,
                            const float* running_mean, const float* running_var, float* y, bool relu = false);
// dx overwritten; dgamma, dbeta [c] overwritten with this replica's sums. With sum_over_replicas,
// dx uses Σdy and Σdy·x̂ over the global batch (the forward must have used it too).
void batchnorm_backward(const BatchNormParams& p, const float* x, const float* dy, const float* gamma,
                        const float* save_mean, const float* save_invstd, float* dx, float* dgamma,
                        float* dbeta, const StatSum& sum_over_replicas = {}, const FusedReluSaved& relu = {});

}  // namespace scalebench::cpu
