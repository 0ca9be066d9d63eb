// upconv2x2.cpp — 2×2 stride-2 transposed convolution, NCHW float32, w [c_in, c_out, 2, 2].
// Each output pixel (2i+a, 2j+b) comes from exactly one input pixel (i, j), so per image the op is
// one sgemm on a "tap matrix" t [c_out·4, h·w] (row (co, a, b), column (i, j)) plus an interleave
// between t and the 2h×2w image. No other kernel sizes or strides: U-Net needs only this one.
#include "kernels/cpu/upconv2x2.h"

#include "kernels/cpu/blas_api.h"

#include <cstddef>

#include "kernels/common/check.h"
#include "kernels/cpu/scratch.h"

namespace scalebench::cpu {
namespace {

void validate(const UpConvParams& p) {
  SB_CHECK(p.n > 0 && p.c_in > 0 && p.c_out > 0 && p.h_in > 0 && p.w_in > 0,
           "upconv2x2: bad sizes n={} c_in={} c_out={} h_in={} w_in={}", p.n, p.c_in, p.c_out, p.h_in, p.w_in);
}

// Interleave t [c_out·4, h·w] into img [c_out, 2h, 2w], adding bias[co] (nullable). Writes each
// output row contiguously, reading the two tap rows (a, b=0) and (a, b=1) side by side.
void taps_to_image(int c_out, int h, int w, const float* t, const float* bias, float* img) {
  const std::size_t hw = std::size_t(h) * w;
  for (int co = 0; co < c_out; ++co) {
    const float b = bias ? bias[co] : 0.0f;
    for (int i = 0; i < h; ++i)
      for (int a = 0; a < 2; ++a) {
        const float* t0 = t + (std::size_t(co) * 4 + a * 2 + 0) * hw + std::size_t(i) * w;
        const float* t1 = t + (std::size_t(co) * 4 + a * 2 + 1) * hw + std::size_t(i) * w;
        float* row = img + (std::size_t(co) * 2 * h + 2 * i + a) * 2 * w;
        for (int j = 0; j < w; ++j) {
          row[2 * j] = t0[j] + b;
          row[2 * j + 1] = t1[j] + b;
        }
      }
  }
}

// The inverse gather: img [c_out, 2h, 2w] -> t [c_out·4, h·w].
void image_to_taps(int c_out, int h, int w, const float* img, float* t) {
  const std::size_t hw = std::size_t(h) * w;
  for (int co = 0; co < c_out; ++co)
    for (int i = 0; i < h; ++i)
      for (int a = 0; a < 2; ++a) {
        float* t0 = t + (std::size_t(co) * 4 + a * 2 + 0) * hw + std::size_t(i) * w;
        float* t1 = t + (std::size_t(co) * 4 + a * 2 + 1) * hw + std::size_t(i) * w;
        const float* row = img + (std::size_t(co) * 2 * h + 2 * i + a) * 2 * w;
        for (int j = 0; j < w; ++j) {
          t0[j] = row[2 * j];
          t1[j] = row[2 * j + 1];
        }
      }
}

}  // namespace

// ---- reference: direct loops, double accumulation ----

void upconv2x2_forward_ref(const UpConvParams& p, const float* x, const float* w, const float* bias, float* y) {
  validate(p);
  const int ho = 2 * p.h_in, wo = 2 * p.w_in;
  for (int n = 0; n < p.n; ++n)
    for (int co = 0; co < p.c_out; ++co)
      for (int oh = 0; oh < ho; ++oh)
        for (int ow = 0; ow < wo; ++ow) {
          const int i = oh / 2, a = oh % 2, j = ow / 2, b = ow % 2;
          double acc = bias ? bias[co] : 0.0;
          for (int ci = 0; ci < p.c_in; ++ci)
            acc += static_cast<double>(x[((std::size_t(n) * p.c_in + ci) * p.h_in + i) * p.w_in + j]) *
                   w[((std::size_t(ci) * p.c_out + co) * 2 + a) * 2 + b];
          y[((std::size_t(n) * p.c_out + co) * ho + oh) * wo + ow] = static_cast<float>(acc);
        }
}

void upconv2x2_backward_data_ref(const UpConvParams& p, const float* dy, const float* w, float* dx) {
  validate(p);
  const int ho = 2 * p.h_in, wo = 2 * p.w_in;
  for (int n = 0; n < p.n; ++n)
    for (int ci = 0; ci < p.c_in; ++ci)
      for (int i = 0; i < p.h_in; ++i)
        for (int j = 0; j < p.w_in; ++j) {
          double acc = 0.0;
          for (int co = 0; co < p.c_out; ++co)
            for (int a = 0; a < 2; ++a)
              for (int b = 0; b < 2; ++b)
                acc += static_cast<double>(dy[((std::size_t(n) * p.c_out + co) * ho + 2 * i + a) * wo + 2 * j + b]) *
                       w[((std::size_t(ci) * p.c_out + co) * 2 + a) * 2 + b];
          dx[((std::size_t(n) * p.c_in + ci) * p.h_in + i) * p.w_in + j] = static_cast<float>(acc);
        }
}

void upconv2x2_backward_filter_ref(const UpConvParams& p, const float* x, const float* dy, float* dw, float* db) {
  validate(p);
  const int ho = 2 * p.h_in, wo = 2 * p.w_in;
  for (int ci = 0; ci < p.c_in; ++ci)
    for (int co = 0; co < p.c_out; ++co)
      for (int a = 0; a < 2; ++a)
        for (int b = 0; b < 2; ++b) {
          double acc = 0.0;
          for (int n = 0; n < p.n; ++n)
            for (int i = 0; i < p.h_in; ++i)
              for (int j = 0; j < p.w_in; ++j)
                acc += static_cast<double>(x[((std::size_t(n) * p.c_in + ci) * p.h_in + i) * p.w_in + j]) *
                       dy[((std::size_t(n) * p.c_out + co) * ho + 2 * i + a) * wo + 2 * j + b];
          dw[((std::size_t(ci) * p.c_out + co) * 2 + a) * 2 + b] = static_cast<float>(acc);
        }
  if (db)
    for (int co = 0; co < p.c_out; ++co) {
      double acc = 0.0;
      for (int n = 0; n < p.n; ++n)
        for (int k = 0; k < ho * wo; ++k) acc += dy[(std::size_t(n) * p.c_out + co) * ho * wo + k];
      db[co] = static_cast<float>(acc);
    }
}

// ---- fast path: one sgemm per image on the tap matrix ----

void upconv2x2_forward_blas(const UpConvParams& p, const float* x, const float* w, const float* bias, float* y) {
  validate(p);
  const int hw = p.h_in * p.w_in, taps = 4 * p.c_out;
  float* t = detail::scratch(std::size_t(taps) * hw);
  for (int n = 0; n < p.n; ++n) {
    // t [c_out·4, hw] = wᵀ [c_out·4, c_in] · x_n [c_in, hw]   (w viewed as [c_in, c_out·4])
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, taps, hw, p.c_in, 1.0f, w, taps,
                x + std::size_t(n) * p.c_in * hw, hw, 0.0f, t, hw);
    taps_to_image(p.c_out, p.h_in, p.w_in, t, bias, y + std::size_t(n) * taps * hw);
  }
}

void upconv2x2_backward_data_blas(const UpConvParams& p, const float* dy, const float* w, float* dx) {
  validate(p);
  const int hw = p.h_in * p.w_in, taps = 4 * p.c_out;
  float* t = detail::scratch(std::size_t(taps) * hw);
  for (int n = 0; n < p.n; ++n) {
    image_to_taps(p.c_out, p.h_in, p.w_in, dy + std::size_t(n) * taps * hw, t);
    // dx_n [c_in, hw] = w [c_in, c_out·4] · t [c_out·4, hw]
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, p.c_in, hw, taps, 1.0f, w, taps, t, hw, 0.0f,
                dx + std::size_t(n) * p.c_in * hw, hw);
  }
}

void upconv2x2_backward_filter_blas(const UpConvParams& p, const float* x, const float* dy, float* dw,
                                    float* db) {
  validate(p);
  const int hw = p.h_in * p.w_in, taps = 4 * p.c_out;
  float* t = detail::scratch(std::size_t(taps) * hw);
  for (int n = 0; n < p.n; ++n) {
    image_to_taps(p.c_out, p.h_in, p.w_in, dy + std::size_t(n) * taps * hw, t);
    // dw [c_in, c_out·4] (+)= x_n [c_in, hw] · t [c_out·4, hw]ᵀ; the first image overwrites.
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, p.c_in, taps, hw, 1.0f, x + std::size_t(n) * p.c_in * hw,
                hw, t, hw, n == 0 ? 0.0f : 1.0f, dw, taps);
  }
  if (db)
    for (int co = 0; co < p.c_out; ++co) {
      double acc = 0.0;
      for (int n = 0; n < p.n; ++n) {
        const float* plane = dy + (std::size_t(n) * p.c_out + co) * 4 * hw;
        for (int k = 0; k < 4 * hw; ++k) acc += plane[k];
      }
      db[co] = static_cast<float>(acc);
    }
}

}  // namespace scalebench::cpu
