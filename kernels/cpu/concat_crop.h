// concat_crop.h — U-Net skip join: centre-crop the skip tensor to the upsampled tensor's size and
// concatenate along channels, skip first: out = [crop(skip), up]. With same padding the crop is the
// identity. NCHW float32.
#pragma once

#include "kernels/common/concat_crop_params.h"

namespace scalebench::cpu {

void concat_crop_forward(const ConcatCropParams& p, const float* skip, const float* up, float* out);
// dskip overwritten (zero outside the crop window); dup overwritten.
void concat_crop_backward(const ConcatCropParams& p, const float* dout, float* dskip, float* dup);

}  // namespace scalebench::cpu
