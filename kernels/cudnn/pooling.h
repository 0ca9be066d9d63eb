// pooling.h — 2×2 stride-2 max pooling through cuDNN, matching kernels/cpu/maxpool2x2.h:
// y [n, c, h/2, w/2] with floor on odd sizes (the last row/column of an odd plane is in no window
// and its gradient is 0). Unlike the CPU version there is no argmax buffer: cuDNN's backward finds
// the maximum again from x and y, so it needs both. Ties (equal values in one window) may route the
// gradient differently from the CPU's first-in-row-major rule; NaNs propagate.
// Not here: other windows, average pooling, padding.
#pragma once

#include "kernels/common/pool2x2_params.h"
#include "kernels/common/tensor.h"
#include "kernels/cudnn/handle.h"

namespace scalebench::cudnn {

using Pool2x2Spec = Pool2x2Params;  // kernels/common/pool2x2_params.h

// x [n, c, h, w] → y [n, c, h/2, w/2]
void maxpool2x2_forward(Handle& handle, const Pool2x2Spec& s, const void* x, void* y);
// dx [n, c, h, w] (overwritten) from x, y (the forward's) and dy [n, c, h/2, w/2].
void maxpool2x2_backward(Handle& handle, const Pool2x2Spec& s, const void* x, const void* y, const void* dy,
                         void* dx);

}  // namespace scalebench::cudnn
