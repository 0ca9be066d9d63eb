// concat_crop.cpp — U-Net skip join: out [n, c_skip + c_up, h, w] = [centre-crop(skip), up].
// Row-wise memcpy; with same padding the crop is the identity and each skip plane is one copy.
// Samples are split over the rank's threads (parallel.h). Does not pad (the skip must be at least as
// large as the upsampled tensor).
#include "kernels/cpu/concat_crop.h"

#include <cstddef>
#include <cstring>

#include "kernels/common/check.h"
#include "kernels/cpu/parallel.h"

namespace scalebench::cpu {
namespace {

void validate(const ConcatCropParams& p) {
  SB_CHECK(p.n > 0 && p.c_skip > 0 && p.c_up > 0 && p.h > 0 && p.w > 0, "concat_crop: bad sizes n={} c_skip={} "
           "c_up={} h={} w={}", p.n, p.c_skip, p.c_up, p.h, p.w);
  SB_CHECK(p.h_skip >= p.h && p.w_skip >= p.w, "concat_crop: skip {}x{} smaller than up {}x{}", p.h_skip,
           p.w_skip, p.h, p.w);
}

// Samples per thread at least, so that each thread moves about kValuesPerThread values.
std::int64_t sample_grain(const ConcatCropParams& p) {
  return kValuesPerThread / (std::int64_t(p.c_skip + p.c_up) * p.h * p.w) + 1;
}

}  // namespace

void concat_crop_forward(const ConcatCropParams& p, const float* skip, const float* up, float* out) {
  validate(p);
  const std::size_t plane = std::size_t(p.h) * p.w, skip_plane = std::size_t(p.h_skip) * p.w_skip;
  const std::size_t row_bytes = sizeof(float) * p.w;
  parallel_for(p.n, sample_grain(p), [&](std::int64_t first, std::int64_t last) {
    for (std::int64_t n = first; n < last; ++n) {
      float* o = out + std::size_t(n) * (p.c_skip + p.c_up) * plane;
      for (int c = 0; c < p.c_skip; ++c) {
        const float* s = skip + (std::size_t(n) * p.c_skip + c) * skip_plane;
        for (int r = 0; r < p.h; ++r)
          std::memcpy(o + std::size_t(c) * plane + std::size_t(r) * p.w,
                      s + std::size_t(r + p.off_h()) * p.w_skip + p.off_w(), row_bytes);
      }
      std::memcpy(o + std::size_t(p.c_skip) * plane, up + std::size_t(n) * p.c_up * plane,
                  sizeof(float) * p.c_up * plane);
    }
  });
}

void concat_crop_backward(const ConcatCropParams& p, const float* dout, float* dskip, float* dup) {
  validate(p);
  const std::size_t plane = std::size_t(p.h) * p.w, skip_plane = std::size_t(p.h_skip) * p.w_skip;
  const std::size_t row_bytes = sizeof(float) * p.w;
  const bool cropped = p.h_skip != p.h || p.w_skip != p.w;
  parallel_for(p.n, sample_grain(p), [&](std::int64_t first, std::int64_t last) {
    for (std::int64_t n = first; n < last; ++n) {
      const float* d = dout + std::size_t(n) * (p.c_skip + p.c_up) * plane;
      float* sample_dskip = dskip + std::size_t(n) * p.c_skip * skip_plane;
      if (cropped) std::memset(sample_dskip, 0, sizeof(float) * p.c_skip * skip_plane);
      for (int c = 0; c < p.c_skip; ++c) {
        float* s = sample_dskip + std::size_t(c) * skip_plane;
        for (int r = 0; r < p.h; ++r)
          std::memcpy(s + std::size_t(r + p.off_h()) * p.w_skip + p.off_w(),
                      d + std::size_t(c) * plane + std::size_t(r) * p.w, row_bytes);
      }
      std::memcpy(dup + std::size_t(n) * p.c_up * plane, d + std::size_t(p.c_skip) * plane,
                  sizeof(float) * p.c_up * plane);
    }
  });
}

}  // namespace scalebench::cpu
