// test_cuda_cast.cpp — dtype conversion on the GPU: f32 -> bf16 bit-identical to an independent host
// round-half-even (ties both ways, overflow to inf, inf, NaN, subnormals, -0), f32 -> f16 equal to
// _Float16 for non-NaN values, exact widening, bf16 <-> f16 through f32, and same-dtype copies.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "kernels/cuda/cast.h"
#include "tests/common/gpu_test_util.h"

namespace scalebench::cuda::test {
namespace {

using CastTest = CudaTest;

float from_bits(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// Edge values plus random ones over a wide exponent range.
std::vector<float> cast_inputs() {
  std::vector<float> v{0.0f, -0.0f, 1.0f, -1.0f,
                       from_bits(0x3f808000u),  // tie, even below: rounds down
                       from_bits(0x3f818000u),  // tie, odd below: rounds up
                       from_bits(0x3f808001u),  // just above a tie
                       from_bits(0x7f7fffffu),  // max float: bf16 rounds to inf
                       std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                       std::numeric_limits<float>::quiet_NaN(), from_bits(0xff800001u),  // a negative signalling NaN
                       from_bits(0x00000001u), from_bits(0x807fffffu),                    // subnormals
                       65504.0f, 65520.0f, 6.1e-5f, 5.9e-8f, 1e-9f};                      // f16 edges
  const std::vector<float> r = random_vec(5000, 61);
  for (std::size_t i = 0; i < r.size(); ++i) v.push_back(r[i] * std::ldexp(1.0f, int(i % 60) - 30));
  return v;
}

TEST_F(CastTest, F32ToBf16IsBitIdenticalToHostRounding) {
  const std::vector<float> in = cast_inputs();
  DeviceBuffer src = upload(in, s()), dst(in.size() * 2);
  cast(std::int64_t(in.size()), DType::f32, src.data(), DType::bf16, dst.data(), s());
  const auto got = download<std::uint16_t>(dst.data(), in.size(), s());
  for (std::size_t i = 0; i < in.size(); ++i)
    ASSERT_EQ(got[i], host_bf16_bits(in[i])) << "input " << in[i] << " (index " << i << ")";
}

TEST_F(CastTest, F32ToF16MatchesFloat16) {
  const std::vector<float> in = cast_inputs();
  DeviceBuffer src = upload(in, s()), dst(in.size() * 2);
  cast(std::int64_t(in.size()), DType::f32, src.data(), DType::f16, dst.data(), s());
  const auto got = download<std::uint16_t>(dst.data(), in.size(), s());
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (std::isnan(in[i])) {
      ASSERT_TRUE(std::isnan(host_from_f16(got[i]))) << "index " << i;  // payload may differ
      continue;
    }
    ASSERT_EQ(got[i], host_f16_bits(in[i])) << "input " << in[i] << " (index " << i << ")";
  }
}

TEST_F(CastTest, WideningIsExactAndSixteenBitTypesConvertThroughF32) {
  std::vector<std::uint16_t> bits(1 << 16);
  for (std::size_t i = 0; i < bits.size(); ++i) bits[i] = static_cast<std::uint16_t>(i);
  DeviceBuffer src = upload(bits, s()), wide(bits.size() * 4), narrow(bits.size() * 2);
  const std::int64_t n = std::int64_t(bits.size());
  for (const DType dt : {DType::bf16, DType::f16}) {
    cast(n, dt, src.data(), DType::f32, wide.data(), s());
    const auto got = download<float>(wide.data(), bits.size(), s());
    for (std::size_t i = 0; i < bits.size(); ++i) {
      const float want = dt == DType::bf16 ? host_from_bf16(bits[i]) : host_from_f16(bits[i]);
      if (std::isnan(want))
        ASSERT_TRUE(std::isnan(got[i])) << "bits " << i;
      else
        ASSERT_EQ(std::memcmp(&got[i], &want, 4), 0) << to_string(dt) << " bits " << i;
    }
  }
  // bf16 -> f16: one rounding of the exact f32 value.
  cast(n, DType::bf16, src.data(), DType::f16, narrow.data(), s());
  const auto got = download<std::uint16_t>(narrow.data(), bits.size(), s());
  for (std::size_t i = 0; i < bits.size(); ++i) {
    const float x = host_from_bf16(bits[i]);
    if (std::isnan(x)) continue;
    ASSERT_EQ(got[i], host_f16_bits(x)) << "bf16 bits " << i;
  }
}

TEST_F(CastTest, SameDtypeCopies) {
  const std::vector<float> in = random_vec(77, 62);
  DeviceBuffer src = upload(in, s()), dst(in.size() * 4);
  cast(std::int64_t(in.size()), DType::f32, src.data(), DType::f32, dst.data(), s());
  EXPECT_EQ(download<float>(dst.data(), in.size(), s()), in);
}

}  // namespace
}  // namespace scalebench::cuda::test
