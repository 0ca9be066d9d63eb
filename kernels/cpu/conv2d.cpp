// conv2d.cpp — 2-D convolution, NCHW float32: direct double-accumulating reference and the
// im2col + sgemm fast path. Per image and per band of output rows: unfold to a column matrix
// col [c_in·k_h·k_w, band·w_out] that stays in cache, then one sgemm (most images are one band; the
// large U-Net planes are several). 1×1 stride-1 pad-0 convolutions use the image itself as the
// column matrix. Does not batch images into one GEMM, does not use Winograd/FFT, and leaves
// threading to OpenBLAS.
#include "kernels/cpu/conv2d.h"

#include "kernels/cpu/blas_api.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "kernels/common/check.h"
#include "kernels/cpu/im2col.h"
#include "kernels/cpu/scratch.h"

namespace scalebench::cpu {
namespace {

void validate(const Conv2dParams& p) {
  SB_CHECK(p.n > 0 && p.c_in > 0 && p.c_out > 0 && p.h_in > 0 && p.w_in > 0,
           "conv2d: bad sizes n={} c_in={} c_out={} h_in={} w_in={}", p.n, p.c_in, p.c_out, p.h_in, p.w_in);
  SB_CHECK(p.k_h > 0 && p.k_w > 0 && p.stride > 0 && p.pad >= 0, "conv2d: bad kernel {}x{} stride {} pad {}",
           p.k_h, p.k_w, p.stride, p.pad);
  SB_CHECK(p.h_out() > 0 && p.w_out() > 0, "conv2d: empty output {}x{} for input {}x{}", p.h_out(), p.w_out(),
           p.h_in, p.w_in);
}

bool is_pointwise(const Conv2dParams& p) { return p.k_h == 1 && p.k_w == 1 && p.stride == 1 && p.pad == 0; }

// Band size: a column matrix of ~16K floats (64 KiB) stays in L2 between im2col writing it and
// sgemm packing it; unbanded, the 128×128 U-Net layers stream tens of MB and ran 2-3× slower on
// the 2-core target. At least 128 columns so each sgemm still has a useful width.
constexpr long kBandFloats = 16384, kBandMinCols = 128;

// Output rows per GEMM: the whole image for 1×1 convolutions (no column matrix), else a band.
int band_rows(const Conv2dParams& p) {
  return is_pointwise(p) ? p.h_out() : detail::band_rows(p, kBandFloats, kBandMinCols);
}

// Backward data as a forward convolution of dy with the flipped, transposed filter (stride 1,
// square kernel, pad <= k-1): its GEMM has inner dimension c_out·k² instead of c_out and needs no
// col2im, about 2× faster when c_out is small. Not when c_in is tiny (the GEMM would be a thin
// matrix-vector product) or c_out outgrows c_in (there col2im's GEMM is already efficient).
bool use_flipped_backward(const Conv2dParams& p) {
  return p.stride == 1 && p.k_h == p.k_w && p.pad <= p.k_h - 1 && p.c_in >= 8 &&
         (p.c_out <= p.c_in || p.c_out < 64);
}

// Sizes of one image's tensors and of the GEMM's shared dimension.
struct Dims {
  std::size_t x_img, y_img, hw_out, k;  // k = c_in·k_h·k_w
  explicit Dims(const Conv2dParams& p)
      : x_img(static_cast<std::size_t>(p.c_in) * p.h_in * p.w_in),
        y_img(static_cast<std::size_t>(p.c_out) * p.h_out() * p.w_out()),
        hw_out(static_cast<std::size_t>(p.h_out()) * p.w_out()),
        k(static_cast<std::size_t>(p.c_in) * p.k_h * p.k_w) {}
};

}  // namespace

// ---- reference: direct loops, double accumulation ----

void conv2d_forward_ref(const Conv2dParams& p, const float* x, const float* w, const float* bias, float* y) {
  validate(p);
  const int ho = p.h_out(), wo = p.w_out();
  for (int n = 0; n < p.n; ++n)
    for (int co = 0; co < p.c_out; ++co)
      for (int oh = 0; oh < ho; ++oh)
        for (int ow = 0; ow < wo; ++ow) {
          double acc = bias ? bias[co] : 0.0;
          for (int ci = 0; ci < p.c_in; ++ci)
            for (int kh = 0; kh < p.k_h; ++kh) {
              const int ih = oh * p.stride - p.pad + kh;
              if (ih < 0 || ih >= p.h_in) continue;
              for (int kw = 0; kw < p.k_w; ++kw) {
                const int iw = ow * p.stride - p.pad + kw;
                if (iw < 0 || iw >= p.w_in) continue;
                acc += static_cast<double>(x[((std::size_t(n) * p.c_in + ci) * p.h_in + ih) * p.w_in + iw]) *
                       w[((std::size_t(co) * p.c_in + ci) * p.k_h + kh) * p.k_w + kw];
              }
            }
          y[((std::size_t(n) * p.c_out + co) * ho + oh) * wo + ow] = static_cast<float>(acc);
        }
}

void conv2d_backward_data_ref(const Conv2dParams& p, const float* dy, const float* w, float* dx) {
  validate(p);
  const int ho = p.h_out(), wo = p.w_out();
  // Gather form: input pixel ih receives from output oh when oh·stride - pad + kh == ih.
  for (int n = 0; n < p.n; ++n)
    for (int ci = 0; ci < p.c_in; ++ci)
      for (int ih = 0; ih < p.h_in; ++ih)
        for (int iw = 0; iw < p.w_in; ++iw) {
          double acc = 0.0;
          for (int co = 0; co < p.c_out; ++co)
            for (int kh = 0; kh < p.k_h; ++kh) {
              const int th = ih + p.pad - kh;
              if (th < 0 || th % p.stride != 0 || th / p.stride >= ho) continue;
              for (int kw = 0; kw < p.k_w; ++kw) {
                const int tw = iw + p.pad - kw;
                if (tw < 0 || tw % p.stride != 0 || tw / p.stride >= wo) continue;
                acc += static_cast<double>(
                           dy[((std::size_t(n) * p.c_out + co) * ho + th / p.stride) * wo + tw / p.stride]) *
                       w[((std::size_t(co) * p.c_in + ci) * p.k_h + kh) * p.k_w + kw];
              }
            }
          dx[((std::size_t(n) * p.c_in + ci) * p.h_in + ih) * p.w_in + iw] = static_cast<float>(acc);
        }
}

void conv2d_backward_filter_ref(const Conv2dParams& p, const float* x, const float* dy, float* dw, float* db) {
  validate(p);
  const int ho = p.h_out(), wo = p.w_out();
  for (int co = 0; co < p.c_out; ++co) {
    for (int ci = 0; ci < p.c_in; ++ci)
      for (int kh = 0; kh < p.k_h; ++kh)
        for (int kw = 0; kw < p.k_w; ++kw) {
          double acc = 0.0;
          for (int n = 0; n < p.n; ++n)
            for (int oh = 0; oh < ho; ++oh) {
              const int ih = oh * p.stride - p.pad + kh;
              if (ih < 0 || ih >= p.h_in) continue;
              for (int ow = 0; ow < wo; ++ow) {
                const int iw = ow * p.stride - p.pad + kw;
                if (iw < 0 || iw >= p.w_in) continue;
                acc += static_cast<double>(dy[((std::size_t(n) * p.c_out + co) * ho + oh) * wo + ow]) *
                       x[((std::size_t(n) * p.c_in + ci) * p.h_in + ih) * p.w_in + iw];
              }
            }
          dw[((std::size_t(co) * p.c_in + ci) * p.k_h + kh) * p.k_w + kw] = static_cast<float>(acc);
        }
    if (db) {
      double acc = 0.0;
      for (int n = 0; n < p.n; ++n)
        for (int i = 0; i < ho * wo; ++i) acc += dy[(std::size_t(n) * p.c_out + co) * ho * wo + i];
      db[co] = static_cast<float>(acc);
    }
  }
}

// ---- fast path: im2col + sgemm per image, in bands of output rows ----

void conv2d_forward_blas(const Conv2dParams& p, const float* x, const float* w, const float* bias, float* y) {
  validate(p);
  const Dims d(p);
  const int wo = p.w_out(), ho = p.h_out(), band = band_rows(p);
  float* col = is_pointwise(p) ? nullptr : detail::scratch(d.k * std::size_t(band) * wo);
  for (int n = 0; n < p.n; ++n) {
    const float* xn = x + n * d.x_img;
    float* yn = y + n * d.y_img;
    // Bias goes in first and the GEMM adds onto it (beta = 1): no second pass over y.
    if (bias)
      for (int co = 0; co < p.c_out; ++co) std::fill(yn + co * d.hw_out, yn + (co + 1) * d.hw_out, bias[co]);
    for (int r0 = 0; r0 < ho; r0 += band) {
      const int r1 = std::min(ho, r0 + band), cols = (r1 - r0) * wo;
      if (col) detail::im2col(p, xn, col, r0, r1);
      // y_n[:, band] [c_out, cols] (+)= w [c_out, k] · col [k, cols]
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, p.c_out, cols, int(d.k), 1.0f, w, int(d.k),
                  col ? col : xn, int(col ? cols : d.hw_out), bias ? 1.0f : 0.0f, yn + std::size_t(r0) * wo,
                  int(d.hw_out));
    }
  }
}

void conv2d_backward_data_blas(const Conv2dParams& p, const float* dy, const float* w, float* dx) {
  validate(p);
  const Dims d(p);
  const int wo = p.w_out(), ho = p.h_out(), band = band_rows(p);
  if (is_pointwise(p)) {
    // dx_n [c_in, hw] = wᵀ [c_in, c_out] · dy_n [c_out, hw]: the column matrix is dx_n itself.
    for (int n = 0; n < p.n; ++n)
      cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, p.c_in, int(d.hw_out), p.c_out, 1.0f, w, p.c_in,
                  dy + n * d.y_img, int(d.hw_out), 0.0f, dx + n * d.x_img, int(d.hw_out));
    return;
  }
  if (use_flipped_backward(p)) {
    Conv2dParams q = p;
    q.c_in = p.c_out, q.c_out = p.c_in, q.h_in = p.h_out(), q.w_in = p.w_out(), q.pad = p.k_h - 1 - p.pad;
    // wt [c_in, c_out, k, k] with wt[ci][co][k−1−kh][k−1−kw] = w[co][ci][kh][kw]; for a square kernel
    // the flattened tap index t = kh·k + kw maps to k² − 1 − t.
    const int kk = p.k_h * p.k_w;
    float* wt = detail::scratch(std::size_t(p.c_in) * p.c_out * kk, 1);
    for (int co = 0; co < p.c_out; ++co)
      for (int ci = 0; ci < p.c_in; ++ci)
        for (int t = 0; t < kk; ++t)
          wt[(std::size_t(ci) * p.c_out + co) * kk + (kk - 1 - t)] = w[(std::size_t(co) * p.c_in + ci) * kk + t];
    conv2d_forward_blas(q, dy, wt, nullptr, dx);
    return;
  }
  float* col = detail::scratch(d.k * std::size_t(band) * wo);
  std::memset(dx, 0, sizeof(float) * d.x_img * p.n);
  for (int n = 0; n < p.n; ++n)
    for (int r0 = 0; r0 < ho; r0 += band) {
      const int r1 = std::min(ho, r0 + band), cols = (r1 - r0) * wo;
      // col [k, cols] = wᵀ [k, c_out] · dy_n[:, band] [c_out, cols], then folded back into dx_n.
      cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, int(d.k), cols, p.c_out, 1.0f, w, int(d.k),
                  dy + n * d.y_img + std::size_t(r0) * wo, int(d.hw_out), 0.0f, col, cols);
      detail::col2im_add(p, col, dx + n * d.x_img, r0, r1);
    }
}

void conv2d_backward_filter_blas(const Conv2dParams& p, const float* x, const float* dy, float* dw, float* db) {
  validate(p);
  const Dims d(p);
  const int wo = p.w_out(), ho = p.h_out(), band = band_rows(p);
  float* col = is_pointwise(p) ? nullptr : detail::scratch(d.k * std::size_t(band) * wo);
  bool first = true;
  for (int n = 0; n < p.n; ++n) {
    const float* xn = x + n * d.x_img;
    for (int r0 = 0; r0 < ho; r0 += band) {
      const int r1 = std::min(ho, r0 + band), cols = (r1 - r0) * wo;
      if (col) detail::im2col(p, xn, col, r0, r1);
      // dw [c_out, k] (+)= dy_n[:, band] [c_out, cols] · col [k, cols]ᵀ: the first band of the first
      // image overwrites (beta = 0), every later one accumulates (beta = 1).
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, p.c_out, int(d.k), cols, 1.0f,
                  dy + n * d.y_img + std::size_t(r0) * wo, int(d.hw_out), col ? col : xn,
                  int(col ? cols : d.hw_out), first ? 0.0f : 1.0f, dw, int(d.k));
      first = false;
    }
  }
  if (db) {
    for (int co = 0; co < p.c_out; ++co) {
      double acc = 0.0;
      for (int n = 0; n < p.n; ++n) {
        const float* row = dy + n * d.y_img + co * d.hw_out;
        for (std::size_t i = 0; i < d.hw_out; ++i) acc += row[i];
      }
      db[co] = static_cast<float>(acc);
    }
  }
}

}  // namespace scalebench::cpu
