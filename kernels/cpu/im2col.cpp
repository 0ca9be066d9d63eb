// im2col.cpp — unfold/fold between a band of output rows of one image and its column matrix.
// Works row by row of the column matrix so every inner loop is a contiguous copy (stride 1) or a
// simple strided gather (stride > 1); the zero-padding border is written explicitly rather than
// branching per element. Does not batch images: the callers run one sgemm per band.
#include "kernels/cpu/im2col.h"

#include <algorithm>
#include <cstring>

namespace scalebench::cpu::detail {
namespace {

// Output columns ow whose input column iw = ow·stride - pad + kw lies in [0, w_in): [lo, hi).
void valid_range(int w_out, int w_in, int stride, int offset, int& lo, int& hi) {
  // iw >= 0  <=>  ow >= ceil(-offset / stride); iw < w_in  <=>  ow <= floor((w_in - 1 - offset) / stride)
  lo = offset >= 0 ? 0 : (-offset + stride - 1) / stride;
  const int last = w_in - 1 - offset;
  hi = last < 0 ? 0 : std::min(w_out, last / stride + 1);
  lo = std::min(lo, hi);
}

}  // namespace

void im2col(const Conv2dParams& p, const float* x, float* col, int oh_begin, int oh_end) {
  const int wo = p.w_out(), s = p.stride;
  const std::size_t plane = static_cast<std::size_t>(p.h_in) * p.w_in;
  for (int ci = 0; ci < p.c_in; ++ci) {
    const float* xc = x + ci * plane;
    for (int kh = 0; kh < p.k_h; ++kh) {
      for (int kw = 0; kw < p.k_w; ++kw) {
        const int off_w = kw - p.pad;
        int lo, hi;
        valid_range(wo, p.w_in, s, off_w, lo, hi);
        for (int oh = oh_begin; oh < oh_end; ++oh, col += wo) {
          const int ih = oh * s - p.pad + kh;
          if (ih < 0 || ih >= p.h_in) {
            std::memset(col, 0, sizeof(float) * wo);
            continue;
          }
          std::fill(col, col + lo, 0.0f);
          std::fill(col + hi, col + wo, 0.0f);
          if (hi == lo) continue;
          // src is input column lo·s + off_w, inside the row by construction of [lo, hi).
          const float* src = xc + static_cast<std::size_t>(ih) * p.w_in + (lo * s + off_w);
          if (s == 1) {
            std::memcpy(col + lo, src, sizeof(float) * (hi - lo));
          } else {
            for (int i = 0; i < hi - lo; ++i) col[lo + i] = src[i * s];
          }
        }
      }
    }
  }
}

void col2im_add(const Conv2dParams& p, const float* col, float* dx, int oh_begin, int oh_end) {
  const int wo = p.w_out(), s = p.stride;
  const std::size_t plane = static_cast<std::size_t>(p.h_in) * p.w_in;
  for (int ci = 0; ci < p.c_in; ++ci) {
    float* dc = dx + ci * plane;
    for (int kh = 0; kh < p.k_h; ++kh) {
      for (int kw = 0; kw < p.k_w; ++kw) {
        const int off_w = kw - p.pad;
        int lo, hi;
        valid_range(wo, p.w_in, s, off_w, lo, hi);
        for (int oh = oh_begin; oh < oh_end; ++oh, col += wo) {
          const int ih = oh * s - p.pad + kh;
          if (ih < 0 || ih >= p.h_in || hi == lo) continue;
          float* dst = dc + static_cast<std::size_t>(ih) * p.w_in + (lo * s + off_w);
          const float* src = col + lo;
          const int len = hi - lo;
          if (s == 1) {  // separate loop so the compiler vectorises the unit-stride case
            for (int i = 0; i < len; ++i) dst[i] += src[i];
          } else {
            for (int i = 0; i < len; ++i) dst[i * s] += src[i];
          }
        }
      }
    }
  }
}

int band_rows(const Conv2dParams& p, long budget_floats, long min_cols) {
  const long k = long(p.c_in) * p.k_h * p.k_w, wo = p.w_out(), ho = p.h_out();
  const long cols = std::max(budget_floats / k, min_cols);
  return int(std::clamp<long>((cols + wo - 1) / wo, 1, ho));
}

}  // namespace scalebench::cpu::detail
