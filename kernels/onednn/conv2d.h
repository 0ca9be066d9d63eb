// conv2d.h — 2-D convolution through oneDNN (Intel's CPU primitive library, the one behind
// PyTorch's CPU convolutions), with the CPU reference's semantics (kernels/cpu/conv2d.h:
// cross-correlation, symmetric zero padding, floor output size, NCHW float32, weights
// [c_out, c_in, k_h, k_w], every output overwritten). A fast path beside im2col + sgemm, tested
// against the reference (tests/kernels/test_onednn_conv2d.cpp).
//
// oneDNN's fast convolutions work on blocked layouts (nChw16c on AVX-512); our tensors are plain
// NCHW, so each call reorders in and out, as PyTorch does. Two reorders a step are saved by keeping
// state in the object: the input's blocked copy from forward() feeds backward()'s weight gradient
// (when backward gets the same input pointer), and the output gradient is reordered once for both
// backward passes. Threads: the calling thread's BLAS budget (cpu::blas_threads()) is handed to
// oneDNN's OpenMP team before every call.
// A ReLU after the convolution can be fused into the forward (oneDNN's eltwise post-op: the
// output is written once, already clamped); its backward mask stays the caller's (relu.h), since
// oneDNN has no masked reorder of the output gradient.
// Not here: other fused activations, dilation, groups, other data types; the choice of when to
// use it (models/conv2d_cpu.cpp). kernels/onednn is the only place that creates oneDNN primitives;
// builds without oneDNN link kernels/noonednn instead, whose entry points fail with one line.
#pragma once

#include <memory>
#include <string>

#include "kernels/common/conv2d_params.h"

namespace scalebench::onednn {

// Whether this build has oneDNN, and the loaded library's version ("2.6.3"; "" without).
bool available();
std::string version();

// One convolution layer's primitives and blocked buffers, for every batch size it meets (training
// and evaluation batches differ). Not thread-safe: one object per layer per replica.
class Conv2d {
 public:
  // relu: forward() writes max(conv + bias, 0). winograd: oneDNN's Winograd F(4x4, 3x3) kernels for
  // all three passes (3x3, stride 1 only; fewer multiplications, float32 results within about 1e-5
  // relative of the direct ones), falling back to the direct convolution where oneDNN has none.
  explicit Conv2d(bool bias, bool relu = false, bool winograd = false);
  ~Conv2d();
  Conv2d(const Conv2d&) = delete;
  Conv2d& operator=(const Conv2d&) = delete;

  // y [n, c_out, h_out, w_out] = conv(x [n, c_in, h_in, w_in], w) + bias (bias null iff built without),
  // max(·, 0) of it when built with relu.
  void forward(const Conv2dParams& p, const float* x, const float* w, const float* bias, float* y);
  // dw [c_out, c_in, k_h, k_w], db [c_out] (null iff no bias) and, when dx is not null,
  // dx [n, c_in, h_in, w_in], from dy [n, c_out, h_out, w_out]; x and w as in forward().
  void backward(const Conv2dParams& p, const float* x, const float* w, const float* dy, float* dw, float* db,
                float* dx);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace scalebench::onednn
