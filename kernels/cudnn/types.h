// types.h — plain value types shared by the cuDNN room's public headers: the Precision a convolution
// runs at and the ConvKey that names one convolution problem (the algorithm cache's key).
// Deliberately includes no cuDNN or CUDA header, so layers can name these without pulling cudnn.h in.
#pragma once

#include <compare>
#include <cstdint>
#include <string>

#include "kernels/common/precision.h"
#include "kernels/common/tensor.h"

namespace scalebench::cudnn {

// How a convolution may round. fp32: f32 data, FMA-only kernels (no TF32, no tensor cores).
// tf32: f32 data, TF32 tensor cores allowed (cuDNN default math). bf16: bf16 data, tensor-op math,
// fp32 accumulation. The data dtype must agree: fp32/tf32 take f32, bf16 takes bf16.
// The enum is the shared scalebench::Precision (kernels/common/precision.h).
using scalebench::Precision;
using scalebench::to_string;

const char* layout_name(Layout l);  // "NCHW" / "NHWC"
// The data dtype a precision computes on (f32 for fp32/tf32, bf16 for bf16).
inline DType data_dtype(Precision p) { return compute_dtype(p); }

// One 2-D convolution problem, in the forward convolution's terms: input x [n, c, h, w], filter
// [k, c, r, s], symmetric pad and stride, dilation 1. Backward data and backward filter of the same
// convolution share the key (the cache keeps one table per direction).
struct ConvKey {
  int n = 1, c = 1, h = 1, w = 1;  // input x
  int k = 1, r = 1, s = 1;         // filter [k, c, r, s]
  int pad = 0, stride = 1;
  DType dtype = DType::f32;
  Layout layout = Layout::NCHW;
  Precision precision = Precision::fp32;
  bool deterministic = false;  // only algorithms cuDNN reports as CUDNN_DETERMINISTIC
  int h_out() const { return (h + 2 * pad - r) / stride + 1; }
  int w_out() const { return (w + 2 * pad - s) / stride + 1; }
  auto operator<=>(const ConvKey&) const = default;
};

// "n=3 c=5 h=7 w=9 k=6 r=3 s=3 pad=1 stride=1 f32 NCHW fp32 deterministic"
std::string to_string(const ConvKey& k);

// Throws scalebench::Error naming the bad field when the key cannot describe a convolution
// (non-positive sizes, empty output, dtype not matching precision).
void validate(const ConvKey& k, const char* what);

}  // namespace scalebench::cudnn
