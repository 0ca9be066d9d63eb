// test_cudnn_util.h — helpers of the cuDNN parity tests (test_cudnn_*.cpp) only: a device buffer
// that uploads/downloads float vectors as f32 or bf16, bf16 rounding on the host, NCHW↔NHWC
// transposes, per-precision tolerances and CudnnEnv (stream + handle + workspace + algorithm cache).
// Built on kernels/cuda/device_buffer.h. Header-only, test-only, private to these tests (the CUDA
// room's tests use gpu_test_util.h); it asserts nothing itself. Not for f16 data.
#pragma once

#include <cstdint>
#include <cstring>
#include <ostream>
#include <random>
#include <vector>

#include <cuda_runtime.h>

#include "kernels/cuda/check.h"
#include "kernels/cuda/device_buffer.h"
#include "kernels/cudnn/conv_algo.h"
#include "kernels/cudnn/handle.h"
#include "kernels/cudnn/types.h"
#include "tests/kernels/kernel_test_util.h"

// Readable gtest parameter names ("NHWC" rather than "1-byte object <01>"), found by ADL.
namespace scalebench {
inline void PrintTo(Layout l, std::ostream* os) { *os << cudnn::layout_name(l); }
inline void PrintTo(DType t, std::ostream* os) { *os << to_string(t); }
namespace cudnn {
inline void PrintTo(Precision p, std::ostream* os) { *os << to_string(p); }
}  // namespace cudnn
}  // namespace scalebench

namespace scalebench::cudnn::test {

using cpu::test::max_rel_err;
using cpu::test::random_vec;

// f32 → bf16 bits, round to nearest even (NaN stays a quiet NaN).
inline std::uint16_t to_bf16(float f) {
  std::uint32_t u = 0;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<std::uint16_t>(u >> 16);
}
inline float from_bf16(std::uint16_t b) {
  const std::uint32_t u = std::uint32_t(b) << 16;
  float f = 0.0f;
  std::memcpy(&f, &u, 4);
  return f;
}
// The values a buffer of dtype t can hold (identity for f32): references are computed on these.
inline std::vector<float> representable(DType t, std::vector<float> v) {
  if (t == DType::bf16)
    for (auto& x : v) x = from_bf16(to_bf16(x));
  return v;
}

// Max error relative to the reference's largest magnitude that each precision is held to. fp32 (FMA
// math) is ~100× below what TF32 rounding would cause, so a TF32 kernel sneaking in fails it.
inline double tolerance(Precision p) {
  switch (p) {
    case Precision::fp32: return 2e-5;
    case Precision::tf32: return 5e-3;
    case Precision::bf16: return 2e-2;
  }
  return 0.0;
}

// [n, c, h, w] (NCHW order) ↔ the same logical tensor stored in `layout`.
inline std::vector<float> to_layout(Layout l, const std::vector<float>& nchw, int n, int c, int h, int w) {
  if (l == Layout::NCHW) return nchw;
  std::vector<float> out(nchw.size());
  for (int i = 0; i < n; ++i)
    for (int ch = 0; ch < c; ++ch)
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
          out[((std::size_t(i) * h + y) * w + x) * c + ch] = nchw[((std::size_t(i) * c + ch) * h + y) * w + x];
  return out;
}
inline std::vector<float> from_layout(Layout l, const std::vector<float>& v, int n, int c, int h, int w) {
  if (l == Layout::NCHW) return v;
  std::vector<float> out(v.size());
  for (int i = 0; i < n; ++i)
    for (int ch = 0; ch < c; ++ch)
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
          out[((std::size_t(i) * c + ch) * h + y) * w + x] = v[((std::size_t(i) * h + y) * w + x) * c + ch];
  return out;
}

// `count` elements of `dtype` on the device (a cuda::DeviceBuffer), filled with NaN (all bits set)
// on stream `s` so an op that should overwrite every element shows any it missed. Uploads and
// downloads convert from/to float and synchronise `s` (the stream the ops run on).
class DevBuf {
 public:
  DevBuf(std::size_t count, DType dtype, cudaStream_t s)
      : count_(count), dtype_(dtype), buf_(count * dtype_size(dtype)) {
    SB_CHECK(dtype != DType::f16, "DevBuf: f16 not supported");
    CUDA_CHECK(cudaMemsetAsync(buf_.data(), 0xff, buf_.bytes(), s));
  }
  DevBuf(const std::vector<float>& v, DType dtype, cudaStream_t s) : DevBuf(v.size(), dtype, s) { upload(v, s); }

  void* get() const { return buf_.data(); }
  float* f32() const { return buf_.as<float>(); }
  std::size_t bytes() const { return buf_.bytes(); }

  void upload(const std::vector<float>& v, cudaStream_t s) {
    SB_CHECK(v.size() == count_, "DevBuf::upload: {} values into {}", v.size(), count_);
    if (dtype_ == DType::f32) {
      cuda::copy_to_device(get(), v.data(), bytes(), s);
    } else {
      std::vector<std::uint16_t> h(count_);
      for (std::size_t i = 0; i < count_; ++i) h[i] = to_bf16(v[i]);
      cuda::copy_to_device(get(), h.data(), bytes(), s);
    }
  }
  std::vector<float> download(cudaStream_t s) const {
    std::vector<float> v(count_);
    if (dtype_ == DType::f32) {
      cuda::copy_to_host(v.data(), get(), bytes(), s);
    } else {
      std::vector<std::uint16_t> h(count_);
      cuda::copy_to_host(h.data(), get(), bytes(), s);
      for (std::size_t i = 0; i < count_; ++i) v[i] = from_bf16(h[i]);
    }
    return v;
  }
  std::vector<std::uint8_t> raw(cudaStream_t s) const {
    std::vector<std::uint8_t> b(bytes());
    cuda::copy_to_host(b.data(), get(), bytes(), s);
    return b;
  }

 private:
  std::size_t count_;
  DType dtype_;
  cuda::DeviceBuffer buf_;
};

// Everything a cuDNN op needs, owned in destruction-safe order (the stream outlives the handle).
struct CudnnEnv {
  explicit CudnnEnv(std::size_t workspace_cap = cuda::Workspace::kDefaultCap)
      : handle(stream.get()), workspace(workspace_cap) {}
  ConvContext ctx() { return ConvContext{handle, workspace, algos}; }
  cudaStream_t s() const { return stream.get(); }

  cuda::Stream stream;  // non-blocking
  Handle handle;
  cuda::Workspace workspace;
  ConvAlgoCache algos;
};

}  // namespace scalebench::cudnn::test
