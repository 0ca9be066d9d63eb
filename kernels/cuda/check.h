// check.h — CUDA_CHECK / CUBLAS_CHECK: a failed CUDA runtime or cuBLAS call becomes a
// scalebench::Error carrying the call, file:line and the library's own error text, so the CLI prints
// one line and exits non-zero. Kernel launches are checked with CUDA_CHECK(cudaGetLastError()).
// Not here: cuDNN (kernels/cudnn/check.h) and NCCL (harness/comm) checks.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "kernels/common/check.h"

#define CUDA_CHECK(call)                                                                              \
  do {                                                                                                \
    const cudaError_t sb_err_ = (call);                                                               \
    if (sb_err_ != cudaSuccess)                                                                       \
      ::scalebench::fail_at(__FILE__, __LINE__, ::fmt::format("{} failed: {} ({})", #call,           \
                                                              cudaGetErrorString(sb_err_),            \
                                                              cudaGetErrorName(sb_err_)));            \
  } while (0)

#define CUBLAS_CHECK(call)                                                                            \
  do {                                                                                                \
    const cublasStatus_t sb_st_ = (call);                                                             \
    if (sb_st_ != CUBLAS_STATUS_SUCCESS)                                                              \
      ::scalebench::fail_at(__FILE__, __LINE__, ::fmt::format("{} failed: {} ({})", #call,           \
                                                              cublasGetStatusString(sb_st_),          \
                                                              static_cast<int>(sb_st_)));             \
  } while (0)
