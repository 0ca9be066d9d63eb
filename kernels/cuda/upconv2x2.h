// upconv2x2.h — 2×2 stride-2 transposed convolution (the U-Net up-convolution) on the GPU, layouts of
// kernels/cpu/upconv2x2.h: x [n, c_in, h, w] -> y [n, c_out, 2h, 2w], NCHW, weight [c_in, c_out, 2, 2]
// (PyTorch ConvTranspose2d), bias [c_out]. Each output pixel has one input pixel, so every direction
// is one cuBLAS GEMM per batch on a "tap matrix" t [n, c_out·4, h·w] (kept in the workspace) plus an
// interleave kernel between t and the 2h×2w image. Precision (cublas_handle.h): x, w, y, dy, dx have
// input_dtype(prec); bias, dw, db are f32.
// Not here: NHWC, other kernel sizes or strides, output padding.
#pragma once

#include <cstddef>

#include "kernels/common/upconv2x2_params.h"
#include "kernels/cuda/cublas_handle.h"
#include "kernels/cuda/device_buffer.h"

namespace scalebench::cuda {

// Workspace any of the three directions needs (the tap matrix, plus the bias-gradient scratch).
std::size_t upconv2x2_workspace_bytes(const UpConvParams& p, Precision prec);

// y = upconv(x, w) + bias (bias nullable). Overwrites y.
void upconv2x2_forward(const CublasHandle& h, Precision prec, const UpConvParams& p, const void* x,
                       const void* w, const float* bias, void* y, Workspace ws);
// dx [n, c_in, h, w]. Overwrites.
void upconv2x2_backward_data(const CublasHandle& h, Precision prec, const UpConvParams& p, const void* dy,
                             const void* w, void* dx, Workspace ws);
// dw [c_in, c_out, 2, 2], db [c_out] (nullable; deterministic). Overwrites both.
void upconv2x2_backward_filter(const CublasHandle& h, Precision prec, const UpConvParams& p, const void* x,
                               const void* dy, float* dw, float* db, Workspace ws);

}  // namespace scalebench::cuda
