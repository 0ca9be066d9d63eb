// maxpool2x2.cpp — 2×2 stride-2 max pooling, NCHW float32, with argmax for a scatter backward.
// Odd sizes floor (last row/column dropped). Ties go to the first element in row-major order
// (strict > comparisons in that order). NaN inputs are not given special treatment. Planes are split
// over the rank's threads (parallel.h).
#include "kernels/cpu/maxpool2x2.h"

#include <cstddef>
#include <cstring>

#include "kernels/common/check.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/vector_clones.h"

namespace scalebench::cpu {
namespace {

// Planes per thread at least, so that each thread has about kValuesPerThread input values.
std::int64_t plane_grain(std::size_t in_plane) { return kValuesPerThread / std::int64_t(in_plane) + 1; }

// One output row from input rows r0, r1 (flat indices i0 and i0 + w of their first elements).
// Selects, not branches: which of four activations is largest is a coin toss to the branch
// predictor (the branchy loop was 2.6 % of a U-Net step); the same strict > comparisons in the same
// order, so the same maxima and argmax.
SB_VECTOR_CLONES void pool_row(const float* r0, const float* r1, int wo, std::int32_t i0, std::int32_t w, float* y,
                               std::int32_t* a) {
  for (int ow = 0; ow < wo; ++ow) {
    const int j = 2 * ow;
    float best = r0[j];
    std::int32_t idx = i0 + j;
    const auto take = [&](float v, std::int32_t at) {
      const bool larger = v > best;
      best = larger ? v : best;
      idx = larger ? at : idx;
    };
    take(r0[j + 1], i0 + j + 1);
    take(r1[j], i0 + w + j);
    take(r1[j + 1], i0 + w + j + 1);
    y[ow] = best;
    a[ow] = idx;
  }
}

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
        pool_row(r0, r0 + w, wo, 2 * oh * w, w, yp + std::size_t(oh) * wo, ap + std::size_t(oh) * wo);
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
