// concat_crop.h — U-Net skip join on the GPU with kernels/cpu/concat_crop.h's semantics: centre-crop
// the skip tensor to the upsampled tensor's h×w and concatenate along channels, skip first:
// out = [crop(skip), up]. NCHW or NHWC (all three tensors in the same layout), any float dtype
// (a pure copy: values are moved bit for bit). Backward splits dout into dskip (zero outside the
// crop window, overwritten) and dup (overwritten).
// Not here: padding a skip smaller than up, or concatenation along any axis but channels.
#pragma once

#include <cuda_runtime_api.h>

#include "kernels/common/concat_crop_params.h"
#include "kernels/common/tensor.h"

namespace scalebench::cuda {

// NCHW: skip [n, c_skip, h_skip, w_skip], up [n, c_up, h, w], out [n, c_skip + c_up, h, w];
// NHWC: skip [n, h_skip, w_skip, c_skip], up [n, h, w, c_up], out [n, h, w, c_skip + c_up].
void concat_crop_forward(const ConcatCropParams& p, Layout layout, DType dtype, const void* skip,
                         const void* up, void* out, cudaStream_t stream);
void concat_crop_backward(const ConcatCropParams& p, Layout layout, DType dtype, const void* dout,
                          void* dskip, void* dup, cudaStream_t stream);

}  // namespace scalebench::cuda
