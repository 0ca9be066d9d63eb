// bias_grad.h — per-channel bias gradient db[c] = Σ over n and hw of dy, for NCHW or NHWC
// activations (f32, bf16 or f16), accumulated in fp32 into an f32 db (overwritten).
// Deterministic: every element has a fixed place in a fixed summation tree (partial sums over
// fixed row ranges, then a fixed-order sum of the partials), so reruns give identical bits. No
// float atomics. The split into partials depends only on the shape, not on the GPU.
// Not here: accumulation into an existing db (callers add if they need to).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "kernels/cuda/bias_act.h"
#include "kernels/cuda/workspace.h"

namespace scalebench::cuda {

// Scratch the reduction needs (0 when one pass suffices).
std::size_t bias_grad_workspace_bytes(const ChannelParams& p);

// db [c] = Σ dy over every position of channel c; takes bias_grad_workspace_bytes(p) from ws.
void bias_grad(const ChannelParams& p, const void* dy, float* db, Workspace& ws, cudaStream_t stream);

}  // namespace scalebench::cuda
