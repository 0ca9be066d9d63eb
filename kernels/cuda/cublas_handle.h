// cublas_handle.h — a cuBLAS handle bound to one stream (RAII, move-only), the Precision a GEMM runs
// at, and gemm(), the one place this room calls cuBLAS's GEMM: column-major, strided-batched,
// fp32 accumulation always.
//   fp32: f32 data, CUBLAS_COMPUTE_32F with the handle in CUBLAS_DEFAULT_MATH (no TF32 tensor cores).
//   tf32: f32 data, CUBLAS_COMPUTE_32F_FAST_TF32 (inputs rounded to TF32 inside the tensor cores).
//   bf16: bf16 A and B, fp32 accumulation (CUBLAS_COMPUTE_32F); C is bf16 or f32.
// Not here: cuBLASLt epilogues, fp8, workspace configuration (cuBLAS's own default is used).
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/common/precision.h"
#include "kernels/common/tensor.h"

namespace scalebench::cuda {

using scalebench::Precision;  // kernels/common/precision.h
using scalebench::to_string;
// The dtype of GEMM inputs at this precision (f32 for fp32/tf32, bf16 for bf16).
inline DType input_dtype(Precision p) { return compute_dtype(p); }

class CublasHandle {
 public:
  explicit CublasHandle(cudaStream_t stream);
  ~CublasHandle();
  CublasHandle(CublasHandle&& o) noexcept;
  CublasHandle& operator=(CublasHandle&& o) noexcept;
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;

  cublasHandle_t get() const { return h_; }
  cudaStream_t stream() const { return stream_; }
  void set_stream(cudaStream_t stream);

 private:
  cublasHandle_t h_ = nullptr;
  cudaStream_t stream_ = nullptr;
};

// One column-major operand of a strided-batched GEMM: matrix k of the batch starts at
// ptr + k·stride elements (stride 0 shares one matrix across the batch).
struct GemmOperand {
  const void* ptr;
  int ld;
  std::int64_t stride = 0;
};

// C_k = alpha·op(A_k)·op(B_k) + beta·C_k for k < batch, op(A) m×k', op(B) k'×n, C m×n, column-major.
// A and B have input_dtype(prec); C has c_dtype (f32, or bf16 when prec is bf16).
void gemm(const CublasHandle& h, Precision prec, bool trans_a, bool trans_b, int m, int n, int k, float alpha,
          GemmOperand a, GemmOperand b, float beta, DType c_dtype, void* c, int ldc, std::int64_t stride_c,
          int batch = 1);

}  // namespace scalebench::cuda
