// linear.cpp — fully connected layer as single cuBLAS GEMMs (see linear.h). cuBLAS is
// column-major; a row-major [r, c] matrix is a column-major [c, r] one with ld = c, so:
//   forward        yᵀ [out, n] = W'ᵀ · xᵀ   with W' = Wᵀ [in, out]: gemm(T, N, out, n, in)
//   backward data  dxᵀ [in, n] = W' · dyᵀ                           gemm(N, N, in, n, out)
//   backward filt  dWᵀ [in, out] = xᵀ · dy                           gemm(N, T, in, out, n)
// The bias is added by bias_act_forward and its gradient is bias_grad, both viewing y / dy as NHWC
// with c = out and hw = 1 (the deterministic per-channel sum).
// No cuBLASLt bias epilogue: the separate bias pass keeps one code path for every precision.
#include "kernels/cuda/linear.h"

#include "kernels/cuda/bias_act.h"
#include "kernels/cuda/bias_grad.h"

namespace scalebench::cuda {
namespace {

void validate(const LinearParams& p) {
  SB_CHECK(p.n > 0 && p.in > 0 && p.out > 0, "linear: bad sizes n={} in={} out={}", p.n, p.in, p.out);
}

ChannelParams rows_of(const LinearParams& p, Precision prec) {
  return ChannelParams{p.n, p.out, 1, Layout::NHWC, input_dtype(prec)};
}

}  // namespace

void linear_forward(const CublasHandle& h, Precision prec, const LinearParams& p, const void* x, const void* w,
                    const float* bias, void* y) {
  validate(p);
  gemm(h, prec, true, false, p.out, p.n, p.in, 1.0f, {w, p.in}, {x, p.in}, 0.0f, input_dtype(prec), y, p.out, 0);
  if (bias) bias_act_forward(rows_of(p, prec), y, bias, Activation::none, y, h.stream());
}

void linear_backward_data(const CublasHandle& h, Precision prec, const LinearParams& p, const void* dy,
                          const void* w, void* dx) {
  validate(p);
  gemm(h, prec, false, false, p.in, p.n, p.out, 1.0f, {w, p.in}, {dy, p.out}, 0.0f, input_dtype(prec), dx, p.in, 0);
}

std::size_t linear_backward_filter_workspace_bytes(const LinearParams& p, Precision prec) {
  return bias_grad_workspace_bytes(rows_of(p, prec));
}

void linear_backward_filter(const CublasHandle& h, Precision prec, const LinearParams& p, const void* x,
                            const void* dy, float* dw, float* db, Workspace& ws) {
  validate(p);
  gemm(h, prec, false, true, p.in, p.out, p.n, 1.0f, {x, p.in}, {dy, p.out}, 0.0f, DType::f32, dw, p.in, 0);
  if (db) bias_grad(rows_of(p, prec), dy, db, ws, h.stream());
}

}  // namespace scalebench::cuda
