// gpu_test_util.h — helpers for the kernels/cuda tests: a fixture owning a stream, deterministic
// random data, host-side dtype rounding (so the CPU reference sees exactly the values the GPU
// reads), upload/download with dtype conversion, NCHW<->NHWC transposes and the error measure
// (max |got - want| over max |want|). The host bf16 rounding here is written independently of the
// GPU's (integer round-half-even on the dropped 16 bits), so the cast test compares two codes.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/common/tensor.h"
#include "kernels/cuda/device_buffer.h"

namespace scalebench::cuda::test {

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

// v rounded through dtype and widened back (identity for f32).
inline std::vector<float> rounded(const std::vector<float>& v, DType dt) {
  std::vector<float> r(v.size());
  for (std::size_t i = 0; i < v.size(); ++i)
    r[i] = dt == DType::f32 ? v[i] : dt == DType::bf16 ? host_from_bf16(host_bf16_bits(v[i])) : host_from_f16(host_f16_bits(v[i]));
  return r;
}

// ---- data ----

inline std::vector<float> random_floats(std::size_t n, std::uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

inline std::vector<std::int32_t> random_labels(std::size_t n, int classes, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(0, classes - 1);
  std::vector<std::int32_t> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

// ---- device transfer with dtype conversion ----

// Device copy of v stored as dtype dt (rounded on the host for 16-bit types).
inline DeviceBuffer to_device(const std::vector<float>& v, DType dt, cudaStream_t s) {
  if (dt == DType::f32) return upload(v, s);
  std::vector<std::uint16_t> bits(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) bits[i] = dt == DType::bf16 ? host_bf16_bits(v[i]) : host_f16_bits(v[i]);
  return upload(bits, s);
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

// ---- comparison ----

// max_i |got_i - want_i| / max_i |want_i| (absolute error when want is all zero); inf on a size
// mismatch or a NaN anywhere in got where want has none.
inline double max_rel_error(const std::vector<float>& got, const std::vector<float>& want) {
  if (got.size() != want.size()) return INFINITY;
  double diff = 0.0, scale = 0.0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(got[i]) != std::isnan(want[i])) return INFINITY;
    if (std::isnan(want[i])) continue;
    diff = std::max(diff, std::fabs(double(got[i]) - double(want[i])));
    scale = std::max(scale, std::fabs(double(want[i])));
  }
  return scale > 0.0 ? diff / scale : diff;
}

// Tolerances of the kernel tests, relative to the tensor's max.
constexpr double kTolF32 = 1e-5;
constexpr double kTolBf16 = 1e-2;
inline double tol_for(DType dt) { return dt == DType::f32 ? kTolF32 : kTolBf16; }

// Fixture: one stream per test.
class CudaTest : public ::testing::Test {
 protected:
  Stream stream_;
  cudaStream_t s() const { return stream_.get(); }
};

}  // namespace scalebench::cuda::test
