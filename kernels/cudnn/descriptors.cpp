// descriptors.cpp — creation, setting and destruction of every cuDNN descriptor the suite
// uses (see descriptors.h). Destruction lives in the Descriptor base (descriptors.h).
// Not here: running anything, choosing algorithms.
#include "kernels/cudnn/descriptors.h"

#include "kernels/cuda/counters.h"

namespace scalebench::cudnn {

cudnnDataType_t to_cudnn(DType t) {
  switch (t) {
    case DType::f32: return CUDNN_DATA_FLOAT;
    case DType::bf16: return CUDNN_DATA_BFLOAT16;
    case DType::f16: return CUDNN_DATA_HALF;
  }
  fail_at(__FILE__, __LINE__, "unknown DType");
}

cudnnTensorFormat_t to_cudnn(Layout l) { return l == Layout::NHWC ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW; }

cudnnMathType_t math_type(Precision p) {
  switch (p) {
    case Precision::fp32: return CUDNN_FMA_MATH;  // FMA kernels only: no TF32 rounding of inputs
    case Precision::tf32: return CUDNN_DEFAULT_MATH;  // TF32 tensor cores allowed on sm_80+
    case Precision::bf16: return CUDNN_TENSOR_OP_MATH;
  }
  fail_at(__FILE__, __LINE__, "unknown Precision");
}

TensorDesc::TensorDesc(DType dtype, Layout layout, int n, int c, int h, int w) {
  SB_CHECK(n > 0 && c > 0 && h > 0 && w > 0, "cuDNN tensor descriptor: bad dims [{}, {}, {}, {}]", n, c, h, w);
  cuda::count_descriptor();
  CUDNN_CHECK(cudnnCreateTensorDescriptor(&d_));
  CUDNN_CHECK(cudnnSetTensor4dDescriptor(d_, to_cudnn(layout), to_cudnn(dtype), n, c, h, w));
}

FilterDesc::FilterDesc(DType dtype, Layout layout, int k, int c, int r, int s) {
  SB_CHECK(k > 0 && c > 0 && r > 0 && s > 0, "cuDNN filter descriptor: bad dims [{}, {}, {}, {}]", k, c, r, s);
  cuda::count_descriptor();
  CUDNN_CHECK(cudnnCreateFilterDescriptor(&d_));
  CUDNN_CHECK(cudnnSetFilter4dDescriptor(d_, to_cudnn(dtype), to_cudnn(layout), k, c, r, s));
}

ConvDesc::ConvDesc(int pad, int stride, int dilation, Precision precision) {
  SB_CHECK(pad >= 0 && stride > 0 && dilation > 0, "cuDNN convolution descriptor: bad pad {} stride {} dilation {}",
           pad, stride, dilation);
  cuda::count_descriptor();
  CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&d_));
  CUDNN_CHECK(cudnnSetConvolution2dDescriptor(d_, pad, pad, stride, stride, dilation, dilation,
                                              CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  CUDNN_CHECK(cudnnSetConvolutionMathType(d_, math_type(precision)));
}

void ConvDesc::set_math_type(int math_type) const {
  CUDNN_CHECK(cudnnSetConvolutionMathType(d_, static_cast<cudnnMathType_t>(math_type)));
}

PoolDesc::PoolDesc(int window, int pad, int stride) {
  SB_CHECK(window > 0 && pad >= 0 && stride > 0, "cuDNN pooling descriptor: bad window {} pad {} stride {}", window,
           pad, stride);
  cuda::count_descriptor();
  CUDNN_CHECK(cudnnCreatePoolingDescriptor(&d_));
  CUDNN_CHECK(cudnnSetPooling2dDescriptor(d_, CUDNN_POOLING_MAX, CUDNN_PROPAGATE_NAN, window, window, pad, pad,
                                          stride, stride));
}

ActivationDesc::ActivationDesc(cudnnActivationMode_t mode, double coef) {
  cuda::count_descriptor();
  CUDNN_CHECK(cudnnCreateActivationDescriptor(&d_));
  CUDNN_CHECK(cudnnSetActivationDescriptor(d_, mode, CUDNN_PROPAGATE_NAN, coef));
}

ConvProblem::ConvProblem(const ConvKey& k)
    : key((validate(k, "cuDNN convolution"), k)),
      x(k.dtype, k.layout, k.n, k.c, k.h, k.w),
      w(k.dtype, k.layout, k.k, k.c, k.r, k.s),
      y(k.dtype, k.layout, k.n, k.k, k.h_out(), k.w_out()),
      conv(k.pad, k.stride, 1, k.precision) {
  int n = 0, c = 0, h = 0, wd = 0;
  CUDNN_CHECK(cudnnGetConvolution2dForwardOutputDim(conv.get(), x.get(), w.get(), &n, &c, &h, &wd));
  SB_CHECK(n == k.n && c == k.k && h == k.h_out() && wd == k.w_out(),
           "cuDNN convolution output [{}, {}, {}, {}] differs from the reference's [{}, {}, {}, {}] ({})", n, c, h,
           wd, k.n, k.k, k.h_out(), k.w_out(), to_string(k));
}

}  // namespace scalebench::cudnn
