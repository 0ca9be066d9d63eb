// sync_batchnorm.h — the device halves of synchronised batch norm (train --sync-bn on cuda), with
// the CPU kernel's arithmetic (kernels/cpu/batchnorm.cpp): per-channel sums in double, one block per
// channel in a fixed order (the same bits every run), and the element-wise passes in the CPU loop's
// float order. The caller (models/cuda/sync_batchnorm.cpp) takes the sums to the host, adds them
// over the replicas and forms the per-channel constants, as the CPU does between its loops.
// Activations of any dtype (math in f32/double), NCHW or NHWC; x [n, c, hw] logically.
// Not here: communication, running statistics (host arithmetic), cuDNN's own batch norm.
#pragma once

#include <cuda_runtime_api.h>

#include "kernels/common/tensor.h"

namespace scalebench::cuda {

struct BnShape {
  int n = 1, c = 1, hw = 1;
  Layout layout = Layout::NCHW;
  DType dtype = DType::f32;
};

// sums[ch] = Σ x over the channel (double [c], device).
void bn_channel_sums(const BnShape& s, const void* x, double* sums, cudaStream_t stream);
// sq[ch] = Σ (x − mean[ch])² (mean: double [c], device).
void bn_centred_squares(const BnShape& s, const void* x, const double* mean, double* sq, cudaStream_t stream);
// y = (x − centre[ch])·scale[ch] + shift[ch] (float [c] each, device).
void bn_affine(const BnShape& s, const void* x, const float* centre, const float* scale, const float* shift, void* y,
               cudaStream_t stream);
// sums[ch] = Σ dy, sums[c + ch] = Σ dy·(x − mean[ch]) (mean float [c]; sums double [2c], device).
void bn_backward_sums(const BnShape& s, const void* x, const void* dy, const float* mean, double* sums,
                      cudaStream_t stream);
// dx = a[ch]·dy + b[ch]·(x − mean[ch]) + c0[ch] (float [c] each, device).
void bn_backward_dx(const BnShape& s, const void* x, const void* dy, const float* mean, const float* a, const float* b,
                    const float* c0, void* dx, cudaStream_t stream);

}  // namespace scalebench::cuda
