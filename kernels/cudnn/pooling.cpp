// pooling.cpp — cuDNN 2×2/2 max pooling (see pooling.h). The output size is asked of
// cuDNN and checked against the CPU's floor(h/2) × floor(w/2). For odd planes dx is zeroed first on
// the handle's stream, so the uncovered last row/column is 0 whether or not cuDNN writes it.
#include "kernels/cudnn/pooling.h"

#include "kernels/cuda/check.h"
#include "kernels/cudnn/check.h"
#include "kernels/cudnn/descriptors.h"

namespace scalebench::cudnn {
namespace {

constexpr float kOne = 1.0f, kZero = 0.0f;

struct Descs {
  explicit Descs(const Pool2x2Spec& s)
      : pool(cached_pool_desc(2, 0, 2)),
        x(cached_tensor_desc(s.dtype, s.layout, s.n, s.c, s.h, s.w)),
        y(cached_tensor_desc(s.dtype, s.layout, s.n, s.c, s.h / 2, s.w / 2)) {
    int n = 0, c = 0, h = 0, w = 0;
    CUDNN_CHECK(cudnnGetPooling2dForwardOutputDim(pool.get(), x.get(), &n, &c, &h, &w));
    SB_CHECK(n == s.n && c == s.c && h == s.h / 2 && w == s.w / 2,
             "maxpool2x2 (cuDNN): cuDNN output [{}, {}, {}, {}] differs from the reference's [{}, {}, {}, {}]", n,
             c, h, w, s.n, s.c, s.h / 2, s.w / 2);
  }
  const PoolDesc& pool;  // cached (descriptors.h): none made after warm-up
  const TensorDesc& x;
  const TensorDesc& y;
};

void validate(const Pool2x2Spec& s) {
  SB_CHECK(s.n > 0 && s.c > 0 && s.h >= 2 && s.w >= 2, "maxpool2x2 (cuDNN): bad sizes n={} c={} h={} w={}", s.n,
           s.c, s.h, s.w);
}

}  // namespace

void maxpool2x2_forward(Handle& handle, const Pool2x2Spec& s, const void* x, void* y) {
  validate(s);
  SB_CHECK(x && y, "maxpool2x2_forward (cuDNN): null operand");
  const Descs d(s);
  CUDNN_CHECK(cudnnPoolingForward(handle.get(), d.pool.get(), &kOne, d.x.get(), x, &kZero, d.y.get(), y));
}

void maxpool2x2_backward(Handle& handle, const Pool2x2Spec& s, const void* x, const void* y, const void* dy,
                         void* dx) {
  validate(s);
  SB_CHECK(x && y && dy && dx, "maxpool2x2_backward (cuDNN): null operand");
  const Descs d(s);
  if (s.h % 2 || s.w % 2) {
    const std::size_t bytes = std::size_t(s.n) * s.c * s.h * s.w * dtype_size(s.dtype);
    CUDA_CHECK(cudaMemsetAsync(dx, 0, bytes, handle.stream()));
  }
  CUDNN_CHECK(cudnnPoolingBackward(handle.get(), d.pool.get(), &kOne, d.y.get(), y, d.y.get(), dy, d.x.get(), x,
                                   &kZero, d.x.get(), dx));
}

}  // namespace scalebench::cudnn
