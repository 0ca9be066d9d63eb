// concat_crop.h — U-Net skip join: centre-crop the skip tensor to the upsampled tensor's size and
// concatenate along channels, skip first: out = [crop(skip), up]. With same padding the crop is the
// identity. NCHW float32.
#pragma once

namespace scalebench::cpu {

struct ConcatCropParams {
  int n = 1;
  int c_skip = 1, h_skip = 1, w_skip = 1;  // skip [n, c_skip, h_skip, w_skip]
  int c_up = 1, h = 1, w = 1;              // up [n, c_up, h, w]; out [n, c_skip + c_up, h, w]
  int off_h() const { return (h_skip - h) / 2; }
  int off_w() const { return (w_skip - w) / 2; }
};

void concat_crop_forward(const ConcatCropParams& p, const float* skip, const float* up, float* out);
// dskip overwritten (zero outside the crop window); dup overwritten.
void concat_crop_backward(const ConcatCropParams& p, const float* dout, float* dskip, float* dup);

}  // namespace scalebench::cpu
