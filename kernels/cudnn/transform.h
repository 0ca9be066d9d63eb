// transform.h — copy a 4-D tensor between the NCHW and NHWC memory orders through
// cudnnTransformTensor: the model's boundary conversions (the batch arrives NCHW, logits leave NCHW)
// and the GPU layers' weight conversions (the parameter arena stays in the CPU's KCRS order; an NHWC
// convolution computes on KRSC copies, which are the same transform with (k, c, r, s) as (n, c, h, w)).
// Not here: dtype conversion (kernels/cuda/cast.h), strided or overlapping tensors.
#pragma once

#include "kernels/common/tensor.h"
#include "kernels/cudnn/handle.h"

namespace scalebench::cudnn {

// dst (dst_layout) = src (src_layout), logical dims (n, c, h, w), both of `dtype`; overwrites dst.
// Same layouts is a plain device copy. src and dst must not overlap.
void transform_layout(Handle& handle, DType dtype, int n, int c, int h, int w, Layout src_layout, const void* src,
                      Layout dst_layout, void* dst);

}  // namespace scalebench::cudnn
