// maxpool2x2.h — our own 2×2 stride-2 max pooling (train --gpu-kernels own) that keeps the argmax,
// with kernels/cpu/maxpool2x2.h's semantics, which is the specification: y [n, c, h/2, w/2] (odd
// planes floor: the last row/column is in no window and gets a zero gradient); the argmax is the
// flat index within the input's h×w plane of the window's maximum, ties to the first element in
// row-major order (strict > in the order (0,0), (0,1), (1,0), (1,1)); NaNs get no special treatment
// (the same comparisons as the CPU). The backward routes dy by the stored argmax: no recomputation,
// and x and y are not read. x, y, dy, dx are `dtype` (f32, bf16, f16; comparisons on the exact fp32
// widening) in `layout` (NCHW or NHWC); argmax int32 [n, c, h/2, w/2] in the same layout as y.
// Not here: other windows or strides, padding, average pooling.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/common/pool2x2_params.h"
#include "kernels/common/tensor.h"

namespace scalebench::cuda {

using Pool2x2Shape = Pool2x2Params;  // kernels/common/pool2x2_params.h

// x [n, c, h, w] → y, argmax [n, c, h/2, w/2]
void maxpool2x2_forward(const Pool2x2Shape& s, const void* x, void* y, std::int32_t* argmax, cudaStream_t stream);
// dx [n, c, h, w] overwritten (every element written once: dy at its window's argmax, 0 elsewhere)
// from dy, argmax [n, c, h/2, w/2].
void maxpool2x2_backward(const Pool2x2Shape& s, const void* dy, const std::int32_t* argmax, void* dx,
                         cudaStream_t stream);

}  // namespace scalebench::cuda
