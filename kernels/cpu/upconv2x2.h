// upconv2x2.h — 2×2 stride-2 transposed convolution (the U-Net up-convolution), NCHW, float32.
// Weight layout follows PyTorch's ConvTranspose2d: w [c_in, c_out, 2, 2]. Because the kernel equals
// the stride, every output pixel has exactly one contributing input pixel, so the op is one GEMM
// plus a scatter. *_ref is the direct double-accumulating specification, *_blas the sgemm path.
#pragma once

#include "kernels/common/upconv2x2_params.h"

namespace scalebench::cpu {

void upconv2x2_forward_ref(const UpConvParams& p, const float* x, const float* w, const float* bias, float* y);
void upconv2x2_forward_blas(const UpConvParams& p, const float* x, const float* w, const float* bias, float* y);
void upconv2x2_backward_data_ref(const UpConvParams& p, const float* dy, const float* w, float* dx);
void upconv2x2_backward_data_blas(const UpConvParams& p, const float* dy, const float* w, float* dx);
// dw [c_in, c_out, 2, 2], db [c_out] (nullable). Overwrites.
void upconv2x2_backward_filter_ref(const UpConvParams& p, const float* x, const float* dy, float* dw, float* db);
void upconv2x2_backward_filter_blas(const UpConvParams& p, const float* x, const float* dy, float* dw, float* db);

}  // namespace scalebench::cpu
