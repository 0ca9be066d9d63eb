// concat_crop_params.h — the sizes of one U-Net skip join: skip [n, c_skip, h_skip, w_skip]
// centre-cropped to up's [h, w] and concatenated before up along channels. Shared by the CPU kernels
// (kernels/cpu/concat_crop.h) and the CUDA ones (kernels/cuda/concat_crop.h).
// Plain data: no validation, dtype or layout.
#pragma once

namespace scalebench {

struct ConcatCropParams {
  int n = 1;
  int c_skip = 1, h_skip = 1, w_skip = 1;  // skip [n, c_skip, h_skip, w_skip]
  int c_up = 1, h = 1, w = 1;              // up [n, c_up, h, w]; out [n, c_skip + c_up, h, w]
  int off_h() const { return (h_skip - h) / 2; }
  int off_w() const { return (w_skip - w) / 2; }
};

}  // namespace scalebench
