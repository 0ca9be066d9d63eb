// maxpool2x2.cpp — 2×2 stride-2 max pooling, NCHW float32, with argmax for a scatter backward.
// Odd sizes floor (last row/column dropped). Ties go to the first element in row-major order
// (strict > comparisons in that order). NaN inputs are not given special treatment. Planes are split
// over the rank's threads (parallel.h).
#include "kernels/cpu/maxpool2x2.h"

#include <cstddef>
#include <cstring>

#include "kernels/common/check.h"
#include "kernels/cpu/parallel.h"

namespace scalebench::cpu {
namespace {

// Planes per thread at least, so that each thread has about kValuesPerThread input values.
std::int64_t plane_grain(std::size_t in_plane) { return kValuesPerThread / std::int64_t(in_plane) + 1; }

}  // namespace

void maxpool2x2_forward(int n, int c, int h, int w, const float* x, float* y, std::int32_t* argmax) {
  SB_CHECK(n > 0 && c > 0 && h >= 2 && w >= 2, "maxpool2x2: bad sizes n={} c={} h={} w={}", n, c, h, w);
  const int ho = h / 2, wo = w / 2;
  const std::size_t planes = std::size_t(n) * c, in_plane = std::size_t(h) * w, out_plane = std::size_t(ho) * wo;
  parallel_for(std::int64_t(planes), plane_grain(in_plane), [&](std::int64_t first, std::int64_t last) {
    for (std::size_t pl = std::size_t(first); pl < std::size_t(last); ++pl) {
      const float* xp = x + pl * in_plane;
      float* yp = y + pl * out_plane;
      std::int32_t* ap = argmax + pl * out_plane;
      for (int oh = 0; oh < ho; ++oh) {
        const float* r0 = xp + std::size_t(2 * oh) * w;
        const float* r1 = r0 + w;
        for (int ow = 0; ow < wo; ++ow) {
          const int j = 2 * ow;
          // Candidates in row-major order; only a strictly larger value replaces the current best.
          float best = r0[j];
          std::int32_t idx = 2 * oh * w + j;
          const auto take = [&](float v, std::int32_t at) {
            if (v > best) {
              best = v;
              idx = at;
            }
          };
          take(r0[j + 1], 2 * oh * w + j + 1);
          take(r1[j], (2 * oh + 1) * w + j);
          take(r1[j + 1], (2 * oh + 1) * w + j + 1);
          yp[std::size_t(oh) * wo + ow] = best;
          ap[std::size_t(oh) * wo + ow] = idx;
        }
      }
    }
  });
}

void maxpool2x2_backward(int n, int c, int h, int w, const float* dy, const std::int32_t* argmax, float* dx) {
  SB_CHECK(n > 0 && c > 0 && h >= 2 && w >= 2, "maxpool2x2: bad sizes n={} c={} h={} w={}", n, c, h, w);
  const std::size_t planes = std::size_t(n) * c, in_plane = std::size_t(h) * w,
                    out_plane = std::size_t(h / 2) * (w / 2);
  parallel_for(std::int64_t(planes), plane_grain(in_plane), [&](std::int64_t first, std::int64_t last) {
    for (std::size_t pl = std::size_t(first); pl < std::size_t(last); ++pl) {
      float* dxp = dx + pl * in_plane;
      const float* dyp = dy + pl * out_plane;
      const std::int32_t* ap = argmax + pl * out_plane;
      std::memset(dxp, 0, sizeof(float) * in_plane);
      // Windows do not overlap, so each argmax is distinct and assignment equals accumulation.
      for (std::size_t k = 0; k < out_plane; ++k) dxp[ap[k]] = dyp[k];
    }
  });
}

}  // namespace scalebench::cpu
