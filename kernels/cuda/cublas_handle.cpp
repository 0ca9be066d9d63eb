// cublas_handle.cpp — CublasHandle and gemm() (see cublas_handle.h). Every GEMM goes through
// cublasGemmStridedBatchedEx with an explicit compute type, so the precision is chosen per call;
// the handle stays in CUBLAS_DEFAULT_MATH so no other cuBLAS routine silently uses TF32.
#include "kernels/cuda/cublas_handle.h"

#include <utility>

#include "kernels/cuda/check.h"

namespace scalebench::cuda {

CublasHandle::CublasHandle(cudaStream_t stream) : stream_(stream) {
  CUBLAS_CHECK(cublasCreate(&h_));
  CUBLAS_CHECK(cublasSetStream(h_, stream));
  CUBLAS_CHECK(cublasSetMathMode(h_, CUBLAS_DEFAULT_MATH));
}

CublasHandle::~CublasHandle() {
  if (h_) (void)cublasDestroy(h_);  // cannot throw here; fails only with the context already gone
}

CublasHandle::CublasHandle(CublasHandle&& o) noexcept
    : h_(std::exchange(o.h_, nullptr)), stream_(std::exchange(o.stream_, nullptr)) {}

CublasHandle& CublasHandle::operator=(CublasHandle&& o) noexcept {
  if (this != &o) {
    if (h_) (void)cublasDestroy(h_);
    h_ = std::exchange(o.h_, nullptr);
    stream_ = std::exchange(o.stream_, nullptr);
  }
  return *this;
}

void CublasHandle::set_stream(cudaStream_t stream) {
  CUBLAS_CHECK(cublasSetStream(h_, stream));
  stream_ = stream;
}

namespace {

cudaDataType_t cuda_type(DType t) {
  switch (t) {
    case DType::f32: return CUDA_R_32F;
    case DType::bf16: return CUDA_R_16BF;
    case DType::f16: return CUDA_R_16F;
  }
  fail_at(__FILE__, __LINE__, "unknown dtype");
}

}  // namespace

void gemm(const CublasHandle& h, Precision prec, bool trans_a, bool trans_b, int m, int n, int k, float alpha,
          GemmOperand a, GemmOperand b, float beta, DType c_dtype, void* c, int ldc, std::int64_t stride_c,
          int batch) {
  SB_CHECK(m > 0 && n > 0 && k > 0 && batch > 0, "gemm: bad sizes m={} n={} k={} batch={}", m, n, k, batch);
  SB_CHECK(c_dtype == DType::f32 || (prec == Precision::bf16 && c_dtype == DType::bf16),
           "gemm: output {} not supported at precision {}", to_string(c_dtype), to_string(prec));
  const cudaDataType_t ab = cuda_type(input_dtype(prec));
  const cublasComputeType_t compute =
      prec == Precision::tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  CUBLAS_CHECK(cublasGemmStridedBatchedEx(h.get(), trans_a ? CUBLAS_OP_T : CUBLAS_OP_N,
                                          trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, m, n, k, &alpha, a.ptr, ab, a.ld,
                                          a.stride, b.ptr, ab, b.ld, b.stride, &beta, c, cuda_type(c_dtype), ldc,
                                          stride_c, batch, compute, CUBLAS_GEMM_DEFAULT));
}

}  // namespace scalebench::cuda
