// linear.cpp — fully connected layer y [n, out] = x [n, in] · wᵀ + b, w [out, in] (PyTorch layout).
// Reference: direct double-accumulating loops. Fast path: one sgemm per call (the batch already is
// the GEMM's row dimension). No fused activation.
#include "kernels/cpu/linear.h"

#include "kernels/cpu/blas_api.h"

#include <algorithm>
#include <cstddef>

#include "kernels/common/check.h"

namespace scalebench::cpu {
namespace {

void validate(const LinearParams& p) {
  SB_CHECK(p.n > 0 && p.in > 0 && p.out > 0, "linear: bad sizes n={} in={} out={}", p.n, p.in, p.out);
}

void bias_grad(const LinearParams& p, const float* dy, float* db) {
  for (int o = 0; o < p.out; ++o) {
    double acc = 0.0;
    for (int r = 0; r < p.n; ++r) acc += dy[std::size_t(r) * p.out + o];
    db[o] = static_cast<float>(acc);
  }
}

}  // namespace

void linear_forward_ref(const LinearParams& p, const float* x, const float* w, const float* bias, float* y) {
  validate(p);
  for (int r = 0; r < p.n; ++r)
    for (int o = 0; o < p.out; ++o) {
      double acc = bias ? bias[o] : 0.0;
      for (int i = 0; i < p.in; ++i)
        acc += static_cast<double>(x[std::size_t(r) * p.in + i]) * w[std::size_t(o) * p.in + i];
      y[std::size_t(r) * p.out + o] = static_cast<float>(acc);
    }
}

void linear_backward_data_ref(const LinearParams& p, const float* dy, const float* w, float* dx) {
  validate(p);
  for (int r = 0; r < p.n; ++r)
    for (int i = 0; i < p.in; ++i) {
      double acc = 0.0;
      for (int o = 0; o < p.out; ++o)
        acc += static_cast<double>(dy[std::size_t(r) * p.out + o]) * w[std::size_t(o) * p.in + i];
      dx[std::size_t(r) * p.in + i] = static_cast<float>(acc);
    }
}

void linear_backward_filter_ref(const LinearParams& p, const float* x, const float* dy, float* dw, float* db) {
  validate(p);
  for (int o = 0; o < p.out; ++o)
    for (int i = 0; i < p.in; ++i) {
      double acc = 0.0;
      for (int r = 0; r < p.n; ++r)
        acc += static_cast<double>(dy[std::size_t(r) * p.out + o]) * x[std::size_t(r) * p.in + i];
      dw[std::size_t(o) * p.in + i] = static_cast<float>(acc);
    }
  if (db) bias_grad(p, dy, db);
}

void linear_forward_blas(const LinearParams& p, const float* x, const float* w, const float* bias, float* y) {
  validate(p);
  if (bias)
    for (int r = 0; r < p.n; ++r) std::copy(bias, bias + p.out, y + std::size_t(r) * p.out);
  // y [n, out] (+)= x [n, in] · w [out, in]ᵀ; bias preloaded so beta = 1 adds onto it.
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, p.n, p.out, p.in, 1.0f, x, p.in, w, p.in,
              bias ? 1.0f : 0.0f, y, p.out);
}

void linear_backward_data_blas(const LinearParams& p, const float* dy, const float* w, float* dx) {
  validate(p);
  // dx [n, in] = dy [n, out] · w [out, in]
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, p.n, p.in, p.out, 1.0f, dy, p.out, w, p.in, 0.0f, dx,
              p.in);
}

void linear_backward_filter_blas(const LinearParams& p, const float* x, const float* dy, float* dw, float* db) {
  validate(p);
  // dw [out, in] = dy [n, out]ᵀ · x [n, in]
  cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, p.out, p.in, p.n, 1.0f, dy, p.out, x, p.in, 0.0f, dw,
              p.in);
  if (db) bias_grad(p, dy, db);
}

}  // namespace scalebench::cpu
