// conv2d.h — 2-D convolution on the CPU, NCHW, float32: forward, backward-data, backward-filter.
// Two implementations with one signature: *_ref is the specification (direct loops, double
// accumulation, no cleverness) and *_blas is the fast path (im2col + OpenBLAS sgemm), tested
// against it. No dilation, no groups: neither U-Net nor VGG needs them.
#pragma once

#include "kernels/common/conv2d_params.h"

namespace scalebench::cpu {

// y [n, c_out, h_out, w_out] = conv(x, w) + bias; bias may be null. Overwrites y.
void conv2d_forward_ref(const Conv2dParams& p, const float* x, const float* w, const float* bias, float* y);
void conv2d_forward_blas(const Conv2dParams& p, const float* x, const float* w, const float* bias, float* y);

// dx [n, c_in, h_in, w_in] from dy [n, c_out, h_out, w_out]. Overwrites dx.
void conv2d_backward_data_ref(const Conv2dParams& p, const float* dy, const float* w, float* dx);
void conv2d_backward_data_blas(const Conv2dParams& p, const float* dy, const float* w, float* dx);

// dw [c_out, c_in, k_h, k_w] and db [c_out] (db may be null). Overwrites both.
void conv2d_backward_filter_ref(const Conv2dParams& p, const float* x, const float* dy, float* dw, float* db);
void conv2d_backward_filter_blas(const Conv2dParams& p, const float* x, const float* dy, float* dw, float* db);

}  // namespace scalebench::cpu
