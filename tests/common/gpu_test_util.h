// gpu_test_util.h — helpers of the GPU kernel tests (tests/gpu/kernels: kernels/cuda and
// kernels/cudnn), header-only and test-only: host-side 16-bit rounding (so the CPU reference sees
// exactly the values the GPU reads), upload/download with dtype conversion, NCHW<->NHWC transposes,
// the tolerances of each op family, a fixture owning a stream (CudaTest), a NaN-poisoned device
// tensor (DevBuf) and CudnnEnv (stream + handle + workspace + algorithm cache). Seeded random data
// and the error measure (max |got - want| over max |want|) are the CPU kernel tests' own
// (tests/kernels/kernel_test_util.h), so both tiers draw the same numbers and measure alike.
// The host bf16 rounding here is written independently of the GPU's (integer round-half-even on the
// dropped 16 bits), so the cast test compares two codes. It asserts nothing itself: each test
// states its tolerance.
#pragma once

#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <ostream>
#include <random>
#include <vector>

#include "kernels/common/precision.h"
#include "kernels/common/tensor.h"
#include "kernels/cuda/check.h"
#include "kernels/cuda/device_buffer.h"
#include "kernels/cuda/workspace.h"
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

namespace scalebench::cuda::test {

using cpu::test::max_rel_err;
using cpu::test::random_vec;

// ---- host 16-bit formats ----

inline std::uint16_t host_bf16_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  if (std::isnan(f)) return static_cast<std::uint16_t>((u >> 16) | 0x40u);  // quiet, sign and top payload kept
  const std::uint32_t upper = u >> 16, lower = u & 0xffffu;
  // Round half to even on the dropped half-word; a carry into the exponent gives the next binade/inf.
  const bool up = lower > 0x8000u || (lower == 0x8000u && (upper & 1u));
  return static_cast<std::uint16_t>(upper + (up ? 1u : 0u));
}
inline float host_from_bf16(std::uint16_t b) {
  const std::uint32_t u = std::uint32_t{b} << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline std::uint16_t host_f16_bits(float f) {
  const _Float16 h = static_cast<_Float16>(f);
  std::uint16_t b;
  std::memcpy(&b, &h, 2);
  return b;
}
inline float host_from_f16(std::uint16_t b) {
  _Float16 h;
  std::memcpy(&h, &b, 2);
  return static_cast<float>(h);
}

// v rounded through dtype and widened back (identity for f32): what a buffer of dt can hold, so
// references are computed on these values.
inline std::vector<float> rounded(const std::vector<float>& v, DType dt) {
  std::vector<float> r(v.size());
  for (std::size_t i = 0; i < v.size(); ++i)
    r[i] = dt == DType::f32 ? v[i] : dt == DType::bf16 ? host_from_bf16(host_bf16_bits(v[i])) : host_from_f16(host_f16_bits(v[i]));
  return r;
}

// ---- data ----

inline std::vector<std::int32_t> random_labels(std::size_t n, int classes, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(0, classes - 1);
  std::vector<std::int32_t> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

// ---- device transfer with dtype conversion ----

// v stored as dtype dt (rounded on the host for 16-bit types) into device memory at dst, ordered on
// s; returns once the copy is complete.
inline void upload_as(void* dst, const std::vector<float>& v, DType dt, cudaStream_t s) {
  if (dt == DType::f32) {
    copy_to_device(dst, v.data(), v.size() * sizeof(float), s);
    return;
  }
  std::vector<std::uint16_t> bits(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) bits[i] = dt == DType::bf16 ? host_bf16_bits(v[i]) : host_f16_bits(v[i]);
  copy_to_device(dst, bits.data(), bits.size() * sizeof(std::uint16_t), s);
}

// Device copy of v stored as dtype dt.
inline DeviceBuffer to_device(const std::vector<float>& v, DType dt, cudaStream_t s) {
  DeviceBuffer b(v.size() * dtype_size(dt));
  upload_as(b.data(), v, dt, s);
  return b;
}

// count elements of dtype dt at p, widened to float.
inline std::vector<float> to_host(const void* p, std::size_t count, DType dt, cudaStream_t s) {
  if (dt == DType::f32) return download<float>(p, count, s);
  const auto bits = download<std::uint16_t>(p, count, s);
  std::vector<float> v(count);
  for (std::size_t i = 0; i < count; ++i) v[i] = dt == DType::bf16 ? host_from_bf16(bits[i]) : host_from_f16(bits[i]);
  return v;
}

// ---- layouts ----

// [n, c, hw] -> [n, hw, c]
template <class T>
std::vector<T> nchw_to_nhwc(const std::vector<T>& v, int n, int c, std::int64_t hw) {
  std::vector<T> r(v.size());
  for (int i = 0; i < n; ++i)
    for (int ch = 0; ch < c; ++ch)
      for (std::int64_t s = 0; s < hw; ++s) r[(i * hw + s) * c + ch] = v[(std::int64_t(i) * c + ch) * hw + s];
  return r;
}
// [n, hw, c] -> [n, c, hw]
template <class T>
std::vector<T> nhwc_to_nchw(const std::vector<T>& v, int n, int c, std::int64_t hw) {
  std::vector<T> r(v.size());
  for (int i = 0; i < n; ++i)
    for (int ch = 0; ch < c; ++ch)
      for (std::int64_t s = 0; s < hw; ++s) r[(std::int64_t(i) * c + ch) * hw + s] = v[(i * hw + s) * c + ch];
  return r;
}
// [n, c, h, w] (NCHW order) <-> the same logical tensor stored in `layout`.
inline std::vector<float> to_layout(Layout l, const std::vector<float>& nchw, int n, int c, int h, int w) {
  return l == Layout::NCHW ? nchw : nchw_to_nhwc(nchw, n, c, std::int64_t(h) * w);
}
inline std::vector<float> from_layout(Layout l, const std::vector<float>& v, int n, int c, int h, int w) {
  return l == Layout::NCHW ? v : nhwc_to_nchw(v, n, c, std::int64_t(h) * w);
}

// ---- tolerances (relative to the tensor's max, as max_rel_err measures) ----

// Our CUDA kernels, by data type.
constexpr double kTolF32 = 1e-5;
constexpr double kTolBf16 = 1e-2;
inline double tol_for(DType dt) { return dt == DType::f32 ? kTolF32 : kTolBf16; }

// ---- device tensors and fixtures ----

// Fixture: one stream per test.
class CudaTest : public ::testing::Test {
 protected:
  Stream stream_;
  cudaStream_t s() const { return stream_.get(); }
};

// `count` elements of `dtype` on the device, filled with NaN (all bits set) on stream `s` so an op
// that should overwrite every element shows any it missed. Uploads and downloads convert from/to
// float and synchronise `s` (the stream the ops run on).
class DevBuf {
 public:
  DevBuf(std::size_t count, DType dtype, cudaStream_t s)
      : count_(count), dtype_(dtype), buf_(count * dtype_size(dtype)) {
    CUDA_CHECK(cudaMemsetAsync(buf_.data(), 0xff, buf_.bytes(), s));
  }
  DevBuf(const std::vector<float>& v, DType dtype, cudaStream_t s) : DevBuf(v.size(), dtype, s) { upload(v, s); }

  void* get() const { return buf_.data(); }
  float* f32() const { return buf_.as<float>(); }
  std::size_t bytes() const { return buf_.bytes(); }

  void upload(const std::vector<float>& v, cudaStream_t s) {
    SB_CHECK(v.size() == count_, "DevBuf::upload: {} values into {}", v.size(), count_);
    upload_as(get(), v, dtype_, s);
  }
  std::vector<float> download(cudaStream_t s) const { return to_host(get(), count_, dtype_, s); }
  std::vector<std::uint8_t> raw(cudaStream_t s) const { return cuda::download<std::uint8_t>(get(), bytes(), s); }

 private:
  std::size_t count_;
  DType dtype_;
  DeviceBuffer buf_;
};

}  // namespace scalebench::cuda::test

namespace scalebench::cudnn::test {

using namespace scalebench::cuda::test;

// Max error relative to the reference's largest magnitude that each precision holds the cuDNN ops
// to. fp32 (FMA math) is ~100× below what TF32 rounding would cause, so a TF32 kernel sneaking in
// fails it.
inline double tolerance(Precision p) {
  switch (p) {
    case Precision::fp32: return 2e-5;
    case Precision::tf32: return 5e-3;
    case Precision::bf16: return 2e-2;
  }
  return 0.0;
}

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
