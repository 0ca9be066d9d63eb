// descriptors.h — RAII wrappers of the cuDNN descriptors this suite uses: 4-d tensor, filter,
// 2-d convolution, pooling and activation, plus ConvProblem (the four descriptors of one ConvKey).
// This file (with descriptors.cpp) is the only place that creates or destroys cuDNN
// descriptors; descriptor_cache.cpp keeps them per value (cached_*). Internal to kernels/cudnn: it includes cudnn.h, so layers include the op headers
// (conv2d.h, ...) instead. Not here: running anything, choosing algorithms.
#pragma once

#include <utility>

#include "kernels/common/tensor.h"
#include "kernels/cudnn/check.h"
#include "kernels/cudnn/types.h"

namespace scalebench::cudnn {

cudnnDataType_t to_cudnn(DType t);
cudnnTensorFormat_t to_cudnn(Layout l);
cudnnMathType_t math_type(Precision p);  // fp32 → FMA, tf32 → DEFAULT (TF32 allowed), bf16 → TENSOR_OP

// Owns one raw descriptor, destroyed with Destroy (also when a derived constructor throws after
// creating it). Movable, not copyable; `get()` is the raw descriptor for cuDNN calls.
template <class Raw, cudnnStatus_t (*Destroy)(Raw)>
class Descriptor {
 public:
  ~Descriptor() {
    if (d_) (void)Destroy(d_);
  }
  Descriptor(Descriptor&& o) noexcept : d_(o.d_) { o.d_ = nullptr; }
  Descriptor& operator=(Descriptor&& o) noexcept {
    std::swap(d_, o.d_);
    return *this;
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  Raw get() const { return d_; }

 protected:
  Descriptor() = default;
  Raw d_ = nullptr;
};

// Logical dims are always (n, c, h, w); `layout` picks the memory order (NCHW or NHWC, packed).
class TensorDesc : public Descriptor<cudnnTensorDescriptor_t, cudnnDestroyTensorDescriptor> {
 public:
  TensorDesc(DType dtype, Layout layout, int n, int c, int h, int w);
};

// Filter [k, c, r, s] (out channels, in channels, rows, cols); NCHW layout stores it KCRS, NHWC KRSC.
class FilterDesc : public Descriptor<cudnnFilterDescriptor_t, cudnnDestroyFilterDescriptor> {
 public:
  FilterDesc(DType dtype, Layout layout, int k, int c, int r, int s);
};

// Cross-correlation (no kernel flip, as the CPU reference), fp32 compute type for every precision,
// math type from `precision` (see math_type).
class ConvDesc : public Descriptor<cudnnConvolutionDescriptor_t, cudnnDestroyConvolutionDescriptor> {
 public:
  ConvDesc(int pad, int stride, int dilation, Precision precision);
  // Another cudnnMathType_t for the call that follows (the one Find chose: AlgoChoice::math_type).
  void set_math_type(int math_type) const;
};

// Max pooling (NaN propagating), square window, symmetric pad and stride.
class PoolDesc : public Descriptor<cudnnPoolingDescriptor_t, cudnnDestroyPoolingDescriptor> {
 public:
  PoolDesc(int window, int pad, int stride);
};

// Activation (e.g. CUDNN_ACTIVATION_RELU); `coef` is the clip ceiling or ELU alpha where used.
class ActivationDesc : public Descriptor<cudnnActivationDescriptor_t, cudnnDestroyActivationDescriptor> {
 public:
  explicit ActivationDesc(cudnnActivationMode_t mode, double coef = 0.0);
};

// The descriptors of one convolution: x [n, c, h, w], w [k, c, r, s], y [n, k, h_out, w_out].
// Construction validates the key and checks cuDNN's output size against ConvKey::h_out/w_out.
struct ConvProblem {
  explicit ConvProblem(const ConvKey& key);
  ConvKey key;
  TensorDesc x;
  FilterDesc w;
  TensorDesc y;
  ConvDesc conv;
};

// Descriptors made once per distinct value and kept for the calling thread's life
// (descriptor_cache.cpp), so a training step after warm-up creates none: the ops of this room look
// them up instead of building them per call. A reference stays valid for the thread's life. The
// cached ConvProblem's math type is set per call (ConvAlgoCache leaves it at the chosen algorithm's).
const ConvProblem& cached_conv_problem(const ConvKey& key);
const TensorDesc& cached_tensor_desc(DType dtype, Layout layout, int n, int c, int h, int w);
const PoolDesc& cached_pool_desc(int window, int pad, int stride);

}  // namespace scalebench::cudnn
