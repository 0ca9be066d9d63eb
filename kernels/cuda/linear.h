// linear.h — fully connected layer through cuBLAS, layouts of kernels/cpu/linear.h: x [n, in],
// W [out, in] (PyTorch), bias [out], y [n, out], all row-major. Precision (cublas_handle.h) picks
// strict fp32, tf32 tensor cores, or bf16 inputs with fp32 accumulation: x, W, y, dy and dx have
// input_dtype(prec); bias, dW and db are always f32. Work is ordered on the handle's stream.
// Not here: fused activations (bias_act.h does ReLU), accumulation into existing gradients.
#pragma once

#include <cstddef>

#include "kernels/common/linear_params.h"
#include "kernels/cuda/cublas_handle.h"
#include "kernels/cuda/workspace.h"

namespace scalebench::cuda {

// y = x·Wᵀ + bias (bias nullable). Overwrites y.
void linear_forward(const CublasHandle& h, Precision prec, const LinearParams& p, const void* x, const void* w,
                    const float* bias, void* y);
// dx [n, in] = dy·W. Overwrites dx.
void linear_backward_data(const CublasHandle& h, Precision prec, const LinearParams& p, const void* dy,
                          const void* w, void* dx);

std::size_t linear_backward_filter_workspace_bytes(const LinearParams& p, Precision prec);
// dW [out, in] = dyᵀ·x, db [out] = Σ_n dy (nullable; deterministic; scratch from ws). Overwrites both.
void linear_backward_filter(const CublasHandle& h, Precision prec, const LinearParams& p, const void* x,
                            const void* dy, float* dw, float* db, Workspace& ws);

}  // namespace scalebench::cuda
