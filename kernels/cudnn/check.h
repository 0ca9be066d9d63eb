// check.h — CUDNN_CHECK: a failed cuDNN call becomes a scalebench::Error with the call,
// file:line and cudnnGetErrorString's text. Only kernels/cudnn includes cudnn.h (DESIGN §2).
#pragma once

#include <cudnn.h>

#include "kernels/common/check.h"

#define CUDNN_CHECK(call)                                                                             \
  do {                                                                                                \
    const cudnnStatus_t sb_st_ = (call);                                                              \
    if (sb_st_ != CUDNN_STATUS_SUCCESS)                                                               \
      ::scalebench::fail_at(__FILE__, __LINE__, ::fmt::format("{} failed: {} ({})", #call,           \
                                                              cudnnGetErrorString(sb_st_),            \
                                                              static_cast<int>(sb_st_)));             \
  } while (0)
