// transform.cpp — NCHW <-> NHWC copies (see transform.h).
// Not here: dtype conversion (kernels/cuda/cast.h).
#include "kernels/cudnn/transform.h"

#include <cudnn.h>

#include "kernels/cuda/check.h"
#include "kernels/cudnn/check.h"
#include "kernels/cudnn/descriptors.h"

namespace scalebench::cudnn {

void transform_layout(Handle& handle, DType dtype, int n, int c, int h, int w, Layout src_layout, const void* src,
                      Layout dst_layout, void* dst) {
  SB_CHECK(n > 0 && c > 0 && h > 0 && w > 0, "transform_layout: bad dims {}x{}x{}x{}", n, c, h, w);
  SB_CHECK(src && dst && src != dst, "transform_layout: null or aliased operands");
  if (src_layout == dst_layout) {
    const std::size_t bytes = std::size_t(n) * c * h * w * dtype_size(dtype);
    CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, handle.stream()));
    return;
  }
  const TensorDesc& sd = cached_tensor_desc(dtype, src_layout, n, c, h, w);
  const TensorDesc& dd = cached_tensor_desc(dtype, dst_layout, n, c, h, w);
  const float one = 1.0f, zero = 0.0f;
  CUDNN_CHECK(cudnnTransformTensor(handle.get(), &one, sd.get(), src, &zero, dd.get(), dst));
}

}  // namespace scalebench::cudnn
