// conv2d.h — 2-D convolution on the CPU, NCHW, float32: forward, backward-data, backward-filter.
// Two implementations with one signature: *_ref is the specification (direct loops, double
// accumulation, no cleverness) and *_blas is the fast path (im2col + OpenBLAS sgemm), tested
// against it. No dilation, no groups: neither U-Net nor VGG needs them.
#pragma once

namespace scalebench::cpu {

struct Conv2dParams {
  int n = 1, c_in = 1, h_in = 1, w_in = 1;  // input  x [n, c_in, h_in, w_in]
  int c_out = 1, k_h = 3, k_w = 3;          // weight w [c_out, c_in, k_h, k_w], bias [c_out]
  int stride = 1, pad = 0;                  // same in both spatial dims
  int h_out() const { return (h_in + 2 * pad - k_h) / stride + 1; }
  int w_out() const { return (w_in + 2 * pad - k_w) / stride + 1; }
};

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
