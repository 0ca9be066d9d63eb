// linear.h — fully connected layer y = x·Wᵀ + b on the CPU, float32.
// W [out, in] as in PyTorch. *_ref accumulates in double; *_blas calls sgemm.
#pragma once

#include "kernels/common/linear_params.h"

namespace scalebench::cpu {

void linear_forward_ref(const LinearParams& p, const float* x, const float* w, const float* bias, float* y);
void linear_forward_blas(const LinearParams& p, const float* x, const float* w, const float* bias, float* y);
// dx [n, in]. Overwrites.
void linear_backward_data_ref(const LinearParams& p, const float* dy, const float* w, float* dx);
void linear_backward_data_blas(const LinearParams& p, const float* dy, const float* w, float* dx);
// dw [out, in], db [out] (nullable). Overwrites.
void linear_backward_filter_ref(const LinearParams& p, const float* x, const float* dy, float* dw, float* db);
void linear_backward_filter_blas(const LinearParams& p, const float* x, const float* dy, float* dw, float* db);

}  // namespace scalebench::cpu
